/**
 * The web SDK's `sampleRate` keeps only some visitors' events (sent with `context.sample_rate`). Before, the
 * service ignored it: an answer over sampled traffic gave the raw counts as if complete and said nothing. Now
 * ingest notes the days (and lowest rate) per touchpoint and environment, and answers about that touchpoint
 * (or every touchpoint) whose period touches one say so; counts stay the events received (not scaled).
 * Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";
import { verifiedDomain } from "../helpers/verified_domain.ts";
import { setListing } from "../../lib/feedback/store.ts";
import { dayNumber, keys } from "../../lib/store/keys.ts";

const sampled = (visitor: number, seq: number, path: string, rate: number) => ({
  ...pageview(visitor, seq, path),
  context: { sample_rate: rate, sdk_version: "1.0.0" },
});

Deno.test("answers over days the web SDK sampled say so with the rate; counts are not scaled", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    // a full day (rate 1, or none) leaves no note
    assert.equal((await s.ingest([sampled(1, 0, "/", 1), pageview(2, 0, "/")])).status, 204);
    assert.equal(await s.count(["sampled"]), 0);
    let a = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.ok(!a.notices.some((n: string) => n.includes("sampl")), a.notices);

    assert.equal((await s.ingest([sampled(3, 0, "/pricing", 0.5), sampled(4, 0, "/", 0.25)])).status, 204);
    assert.equal((await s.ingest([sampled(5, 0, "/", 0.5)])).status, 204);
    a = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.equal(a.visitors.value, 5, "counts are the events received");
    const note = a.notices.find((n: string) => n.startsWith("web SDK sampling"));
    assert.ok(note, a.notices);
    assert.match(note, /on 1 day of this period .*sampleRate as low as 0\.25, 25%\).*not scaled up/);
    // every answer with a period reads the same note
    const pages = await s.read("behavior_pages", { period: "2026-11-18..2026-11-18" });
    assert.ok(pages.notices.some((n: string) => n.startsWith("web SDK sampling")), pages.notices);

    // a period (and the one it compares against) without a sampled day says nothing
    s.deps.clock.set(Date.parse("2026-11-26T12:00:00Z"));
    const later = await s.read("behavior_overview", { period: "2026-11-25..2026-11-26" });
    assert.ok(!later.notices.some((n: string) => n.includes("sampl")), later.notices);
  } finally {
    await s.close();
  }
});

Deno.test("the period compared against is told of its sampled days too", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    assert.equal((await s.ingest([sampled(1, 0, "/", 0.1)])).status, 204);
    s.deps.clock.set(Date.parse("2026-11-19T12:00:00Z"));
    const a = await s.read("behavior_overview", { period: "2026-11-19..2026-11-19" });
    assert.ok(
      a.notices.some((n: string) => /on 1 day of this period or the one compared .*0\.1, 10%/.test(n)),
      a.notices,
    );
  } finally {
    await s.close();
  }
});

/**
 * The mark belongs to the touchpoint whose key sent the sampled events. Before, it was kept per organization
 * and environment and any rate in (0, 1) was taken: one event with `"sample_rate": 1e-320`, sent by anyone
 * with the website's public key, put "sampleRate as low as 1e-320, 0%" on every answer of the organization,
 * the iOS app's behavior_overview and the app-store review answers included.
 */
const NOW = Date.parse("2026-11-18T12:00:00Z");
const DAY_PERIOD = "2026-11-18..2026-11-18";
const noSampling = (a: { notices: string[] }, what: string) =>
  assert.ok(!a.notices.some((n) => n.includes("sampl")), `${what}: ${JSON.stringify(a.notices)}`);

async function twoSitesAndAnApp() {
  const s = await openSite({ now: NOW });
  await verifiedDomain(s.deps, s.t.org, s.t.domain);
  const shop = await s.admin("POST", "/touchpoints", { name: "Shop", kind: "website", domain: "shop.test" });
  const shopKey = (await s.admin("POST", "/keys", {
    kind: "public",
    environment: "production",
    touchpoint: shop.id,
  })).key as string;
  const ios = await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
  const app = await s.admin("POST", "/apps", {
    store: "app_store",
    store_id: "284882215",
    name: "Acme",
    touchpoint: ios.id,
  });
  await setListing(s.kv, s.t.org, app.id, {
    name: "Acme",
    developer: "Acme",
    developer_website: `https://www.${s.t.domain}`,
    version: "2.1",
    fetched_at: NOW,
  });
  await s.importReviews(app.id, [
    { id: "r1", author: "Reviewer", rating: 4, text: "Works well", date: "2026-11-18T09:00:00Z" },
  ]);
  // a followed app has no touchpoint: its answers are over no one touchpoint, and still not the web SDK's
  const rival = await s.admin("POST", "/apps", {
    store: "google_play",
    store_id: "com.rival.app",
    name: "Rival",
  });
  await s.importReviews(rival.id, [
    { id: "v1", author: "Someone", rating: 2, text: "Slow to open", date: "2026-11-18T10:00:00Z" },
  ]);
  // the shop's visitors are all sent (no sampling)
  const shopView = { ...pageview(9, 0, "/"), properties: { path: "/", url: "https://shop.test/" } };
  assert.equal((await s.ingest([shopView], { key: shopKey, origin: "https://shop.test" })).status, 204);
  return { s, shop, ios, app, rival };
}

Deno.test("a sampled web event marks its own touchpoint: the other website, the iOS app and reviews say nothing", async () => {
  const { s, shop, ios, app, rival } = await twoSitesAndAnApp();
  try {
    // a rate no SDK would send is kept at the floor (0.0001), never 1e-320; the events are stored
    assert.equal((await s.ingest([sampled(1, 0, "/", 1e-320)])).status, 204);
    const site = await s.read("behavior_overview", { touchpoint: s.t.touchpoint, period: DAY_PERIOD });
    assert.equal(site.visitors.value, 1);
    const note = site.notices.find((n: string) => n.startsWith("web SDK sampling"));
    assert.ok(note, site.notices);
    assert.match(note, /sampleRate 0\.0001 or lower, 0\.01% or less\)/);
    assert.doesNotMatch(note, /e-320|, 0%/);

    noSampling(await s.read("behavior_overview", { touchpoint: shop.id, period: DAY_PERIOD }), "the shop");
    noSampling(await s.read("behavior_overview", { touchpoint: ios.id, period: DAY_PERIOD }), "the iOS app");
    noSampling(
      await s.read("behavior_pages", { touchpoint: ios.id, period: DAY_PERIOD }),
      "the iOS app's pages",
    );
    noSampling(await s.read("feedback_summary", { period: DAY_PERIOD }), "feedback_summary");
    noSampling(await s.read("feedback_reviews", { app: app.id, period: DAY_PERIOD }), "feedback_reviews");
    noSampling(await s.read("feedback_themes", { period: DAY_PERIOD }), "feedback_themes");
    noSampling(
      await s.read("feedback_summary", { app: rival.id, period: DAY_PERIOD }),
      "a followed app's summary",
    );
    noSampling(
      await s.read("feedback_themes", { app: rival.id, period: DAY_PERIOD }),
      "a followed app's themes",
    );
    // an answer over every touchpoint (reports of all of them) is told
    const all = await s.read("reports_list", { period: DAY_PERIOD });
    assert.ok(all.notices.some((n: string) => n.startsWith("web SDK sampling")), all.notices);
    noSampling(
      await s.read("reports_list", { touchpoint: ios.id, period: DAY_PERIOD }),
      "the iOS app's reports",
    );
  } finally {
    await s.close();
  }
});

Deno.test("sample rates the SDK never sends (0, 1 or more, negative, not a number) leave no mark", async () => {
  const s = await openSite({ now: NOW });
  try {
    // (1e400, which would read as Infinity, is refused by the body's own limits before this)
    const rates: unknown[] = [0, -0.5, -1e-320, 1, 2, "0.5", null, true, { rate: 0.5 }, [0.5]];
    const batch = rates.map((r, i) => ({ ...pageview(i, 0, "/"), context: { sample_rate: r } }));
    assert.equal((await s.ingest(batch)).status, 204);
    assert.equal(await s.count(["sampled"]), 0);
    noSampling(await s.read("behavior_overview", { period: DAY_PERIOD }), "the site");
  } finally {
    await s.close();
  }
});

Deno.test("a mark stored the old way (per organization and environment) is read for websites and all touchpoints", async () => {
  const { s, shop, ios, app } = await twoSitesAndAnApp();
  try {
    const day = dayNumber(NOW);
    await s.kv.set(keys.sampled(s.t.org, "production"), { [day]: 0.5, [day - 10]: 1e-320, junk: "x" });
    for (const tp of [s.t.touchpoint, shop.id]) {
      const a = await s.read("behavior_overview", { touchpoint: tp, period: DAY_PERIOD });
      assert.ok(
        a.notices.some((n: string) => /on 1 day of this period .*as low as 0\.5, 50%/.test(n)),
        a.notices,
      );
    }
    const all = await s.read("reports_list", { period: "2026-11-08..2026-11-18" });
    assert.ok(all.notices.some((n: string) => /on 2 days .*0\.0001 or lower/.test(n)), all.notices);
    noSampling(await s.read("behavior_overview", { touchpoint: ios.id, period: DAY_PERIOD }), "the iOS app");
    noSampling(await s.read("feedback_reviews", { app: app.id, period: DAY_PERIOD }), "feedback_reviews");

    // a new mark of one website joins the old one for that website only
    assert.equal((await s.ingest([sampled(1, 0, "/", 0.25)])).status, 204);
    const site = await s.read("behavior_overview", { touchpoint: s.t.touchpoint, period: DAY_PERIOD });
    assert.ok(site.notices.some((n: string) => /on 1 day .*as low as 0\.25, 25%/.test(n)), site.notices);
    const other = await s.read("behavior_overview", { touchpoint: shop.id, period: DAY_PERIOD });
    assert.ok(other.notices.some((n: string) => /as low as 0\.5, 50%/.test(n)), other.notices);

    // an old record that is not a map of days to rates is no mark, and no failure
    for (const value of ["x", 7, [0.5], null, { [day]: "0.5" }, { [day]: -1 }]) {
      await s.kv.set(keys.sampled(s.t.org, "production"), value);
      noSampling(
        await s.read("behavior_overview", { touchpoint: shop.id, period: DAY_PERIOD }),
        JSON.stringify(value),
      );
    }
  } finally {
    await s.close();
  }
});
