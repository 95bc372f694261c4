import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { createEngine } from "../../../lib/query/api.ts";
import { unpackEvent } from "../../../lib/store/event_codec.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent, StoredHit } from "../../../lib/store/records.ts";
import { generateSite, siteLines, type SiteOptions } from "../../../lib/demo/site.ts";
import { PAGES } from "../../../lib/demo/world.ts";
import { elementName } from "../../../lib/enrich/element.ts";
import { attribute, attributionInputOf } from "../../../lib/enrich/attribution.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";

const DAY = 86_400_000;
const END_ISO = "2026-11-20T00:00:00Z";
const END = Date.parse(END_ISO);
const small: SiteOptions & { end: number } = {
  org: "o",
  touchpoint: "tp",
  events: 1_500,
  visitors: 150,
  hits: 150,
  days: 10,
  seed: 3,
  end: END,
};

const lines = (o: SiteOptions & { end: number }) => [...siteLines(o)];
const idsOf = (ls: string[]) => new Set(ls.map((l) => JSON.parse(l).event_id as string));

async function rawCounts(kv: Deno.Kv, org: string) {
  let events = 0, hits = 0;
  for await (const _ of kv.list({ prefix: keys.rawEvents(org, "production") })) events++;
  for await (const _ of kv.list({ prefix: keys.rawHits(org, "production") })) hits++;
  return { events, hits };
}

Deno.test("generate: the same seed and end give identical lines; another seed gives other ids", () => {
  const a = lines(small);
  assert.equal(a.length, 1_650);
  assert.deepEqual(lines(small), a);
  const other = lines({ ...small, seed: 4 });
  assert.notDeepEqual(other, a);
  const shared = [...idsOf(other)].filter((id) => idsOf(a).has(id));
  assert.equal(shared.length, 0);
  // every id once: events and hits share the dedupe namespace
  assert.equal(idsOf(a).size, a.length);
});

Deno.test("generate: ids come from the seed alone, so a later end moves the times but keeps the ids", () => {
  const a = lines(small);
  const later = lines({ ...small, end: END + 3 * DAY + 12_345 });
  assert.deepEqual(idsOf(later), idsOf(a));
  assert.notDeepEqual(later, a);
});

Deno.test("generate: writing the same site twice stores nothing new; a later end neither", async () => {
  const deps = await testDeps();
  const o = { ...small, compact: false };
  const first = await generateSite(deps, o);
  assert.deepEqual([first.events_stored, first.hits_stored], [1_500, 150]);
  const counts = await rawCounts(deps.kv, "o");
  assert.deepEqual(counts, { events: 1_500, hits: 150 });
  const again = await generateSite(deps, o);
  assert.deepEqual([again.events, again.hits, again.events_stored, again.hits_stored], [1_500, 150, 0, 0]);
  const later = await generateSite(deps, { ...o, end: END + DAY });
  assert.deepEqual([later.events_stored, later.hits_stored], [0, 0]);
  assert.deepEqual(await rawCounts(deps.kv, "o"), counts);
  deps.kv.close();
});

Deno.test("generate: a bigger site with the same seed stores only what is new (batches part stored)", async () => {
  const deps = await testDeps();
  const o = { ...small, compact: false };
  await generateSite(deps, o);
  const bigger = await generateSite(deps, { ...o, events: 3_000, hits: 300 });
  assert.deepEqual([bigger.events_stored, bigger.hits_stored], [1_500, 150]);
  assert.deepEqual(await rawCounts(deps.kv, "o"), { events: 3_000, hits: 300 });
  deps.kv.close();
});

Deno.test("generate: compacted, a rerun adds nothing to the answers; importing the same ids is all duplicates", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const o = { ...small, org: t.org, touchpoint: t.touchpoint, host: t.domain, end: deps.clock.now() };
  await generateSite(deps, o);
  const engine = createEngine(deps);
  const scope = {
    org: t.org,
    env: "production" as const,
    from: o.end - 20 * DAY,
    to: o.end,
    timezone: "UTC",
  };
  const totals = async () => ({
    events: (await engine.aggregate(scope, { metrics: ["events"] })).totals,
    hits: (await engine.hitsAggregate(scope, { metrics: ["requests"] })).totals,
  });
  const before = await totals();
  // "events" leaves out a few automated ones
  assert.ok(before.events.events! > 1_400 && before.hits.requests === 150, JSON.stringify(before));
  const again = await generateSite(deps, o);
  assert.deepEqual([again.events_stored, again.hits_stored], [0, 0]);
  assert.deepEqual(await totals(), before);

  const res = await app.request(
    `/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines(o).join("\n"),
    },
  );
  const r = await res.json();
  assert.deepEqual([r.imported, r.duplicates, r.rejected_total], [0, 1_650, 0]);
  deps.kv.close();
});

// ---- the features the product relies on, in a site of 20k events as stored ----

interface Site {
  events: StoredEvent[];
  hits: StoredHit[];
}
let site: Promise<Site> | null = null;
function featureSite(): Promise<Site> {
  return site ??= (async () => {
    const deps = await testDeps();
    await generateSite(deps, {
      org: "f",
      touchpoint: "tp",
      events: 20_000,
      days: 30,
      seed: 11,
      end: END,
      compact: false,
    });
    const events: StoredEvent[] = [], hits: StoredHit[] = [];
    for await (const e of deps.kv.list({ prefix: keys.rawEvents("f", "production") })) {
      events.push(unpackEvent(e.value));
    }
    for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits("f", "production") })) {
      hits.push(e.value);
    }
    deps.kv.close();
    return { events, hits };
  })();
}

const tally = <T>(xs: T[], key: (x: T) => string | null | undefined) => {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = key(x);
    if (k != null) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
};
const humanViews = (s: Site) => s.events.filter((e) => e.event_type === "$pageview" && e.traffic === "human");
const ofType = (s: Site, type: string) => s.events.filter((e) => e.event_type === type);

Deno.test("generated site: page popularity follows a power law", async () => {
  const s = await featureSite();
  assert.equal(s.events.length, 20_000);
  const views = tally(humanViews(s), (e) => e.path);
  const counts = PAGES.map((p) => views.get(p) ?? 0).sort((a, b) => b - a);
  const median = counts[Math.floor(counts.length / 2)];
  assert.ok(counts[0] >= 20 * Math.max(1, median), `top ${counts[0]}, median ${median}`);
  // not just a busy home page: popularity keeps falling along the ranks, and the long tail is thin
  assert.ok(counts[20] >= 2.5 * median, `rank 21 ${counts[20]}, median ${median}`);
  const total = counts.reduce((a, b) => a + b, 0);
  const tail = counts.slice(counts.length / 2).reduce((a, b) => a + b, 0);
  assert.ok(tail < 0.15 * total, `bottom half of the pages: ${tail} of ${total} views`);
});

Deno.test("generated site: visitors return over several days", async () => {
  const s = await featureSite();
  const days = new Map<string, Set<number>>();
  for (const e of s.events) {
    const d = days.get(e.anonymous_id) ?? new Set<number>();
    days.set(e.anonymous_id, d.add(Math.floor(e.received_at / DAY)));
  }
  const spread = [...days.values()].map((d) => d.size);
  const threeDays = spread.filter((n) => n >= 3).length;
  assert.ok(threeDays >= 0.05 * spread.length, `${threeDays} of ${spread.length} on 3+ days`);
  assert.ok(spread.some((n) => n >= 5));
});

Deno.test("generated site: channels and sources incl. search, social, email, UTM campaigns and AI engines", async () => {
  const s = await featureSite();
  const landings = humanViews(s);
  const channels = tally(landings, (e) => e.channel);
  for (
    const c of [
      "Direct",
      "Organic Search",
      "Organic Social",
      "Referral",
      "Email",
      "Paid Search",
      "Paid Social",
      "AI Assistant",
    ]
  ) assert.ok((channels.get(c) ?? 0) >= 20, `${c}: ${channels.get(c)}`);
  const sources = tally(landings, (e) => e.source);
  for (const src of ["google", "bing", "linkedin", "reddit", "chatgpt", "perplexity", "claude", "gemini"]) {
    assert.ok(sources.has(src), src);
  }
  // each landing is named as ingest names it, so the demo's rows and live events' rows are one
  for (const e of landings) {
    const a = attribute(attributionInputOf(e));
    assert.deepEqual([e.source, e.channel], [a.source, a.channel], JSON.stringify(e.properties));
  }
  const campaigns = tally(s.events, (e) => e.utm && `${e.utm.medium}/${e.utm.campaign}`);
  for (const medium of ["email", "cpc", "paid_social"]) {
    assert.ok([...campaigns.keys()].some((k) => k.startsWith(medium + "/")), medium);
  }
  assert.ok(campaigns.size >= 3);
  const tagged = landings.filter((e) => e.utm && String(e.properties.url).includes("utm_campaign="));
  assert.ok(tagged.length >= 100, `${tagged.length} landing URLs with UTM`);
});

Deno.test("generated site: sign_up and purchase with plan and amount", async () => {
  const s = await featureSite();
  const signups = ofType(s, "sign_up");
  assert.ok(signups.length >= 20, `${signups.length} sign-ups`);
  assert.ok(signups.every((e) => e.properties.method === "email" || e.properties.method === "google"));
  const price: Record<string, number> = { starter: 29, pro: 99, team: 249, enterprise: 499 };
  const purchases = ofType(s, "purchase");
  assert.ok(purchases.length >= 10, `${purchases.length} purchases`);
  for (const p of purchases) {
    assert.equal(p.properties.amount, price[p.properties.plan as string], JSON.stringify(p.properties));
  }
  assert.ok(new Set(purchases.map((p) => p.properties.plan)).size >= 3);
});

Deno.test("generated site: autocapture clicks with fingerprints, some rage clicks", async () => {
  const s = await featureSite();
  const clicks = ofType(s, "$autocapture");
  assert.ok(clicks.length >= 1_000);
  assert.ok(clicks.every((c) => c.fingerprint && c.fingerprint.selector && c.fingerprint.tag && c.element));
  assert.ok(new Set(clicks.map((c) => c.fingerprint!.selector)).size >= 5);
  const rage = clicks.filter((c) => c.properties.rage_click === true);
  assert.ok(rage.length >= 0.01 * clicks.length && rage.length < 0.3 * clicks.length, `${rage.length} rage`);
});

Deno.test("generated site: form field changes and submits, named as ingest names them (behavior_features' forms)", async () => {
  const s = await featureSite();
  const forms = ofType(s, "$autocapture").filter((e) => e.properties.action !== "click");
  const changes = forms.filter((e) => e.properties.action === "change");
  const submits = forms.filter((e) => e.properties.action === "submit");
  assert.ok(
    changes.length >= 100 && submits.length >= 20,
    `${changes.length} changes, ${submits.length} submits`,
  );
  for (const e of forms) {
    assert.equal(e.element, elementName(e.fingerprint), JSON.stringify(e.fingerprint));
    assert.equal(e.properties.rage_click, false);
    // the SDK describes the form's fields, never what was typed
    const fields = (e.properties.form as { fields: Record<string, unknown>[] }).fields;
    assert.ok(fields.length > 0 && fields.every((f) => Object.keys(f).sort().join() === "name,type"));
  }
  assert.deepEqual(
    [...new Set(submits.map((e) => e.path))].sort(),
    ["/checkout", "/contact", "/signup"],
  );
  assert.ok(new Set(changes.map((e) => e.element)).size >= 5, "fields are elements of their own");
  // every sign-up follows a submit of the sign-up form in its session; not every started form is sent
  const sent = new Set(submits.filter((e) => e.path === "/signup").map((e) => e.session_id));
  assert.ok(ofType(s, "sign_up").every((e) => sent.has(e.session_id)));
  const started = new Set(changes.filter((e) => e.path === "/signup").map((e) => e.session_id));
  assert.ok(started.size > sent.size, `${started.size} started, ${sent.size} sent`);
  // a change names its form as its submit's element, so a form's starts and submits meet on one row
  const formOf = new Map(submits.map((e) => [e.path, e.element]));
  for (const e of changes) {
    assert.equal(e.properties.form_element, formOf.get(e.path), JSON.stringify(e.properties));
    const fp = (e.properties.form as { fingerprint: Record<string, unknown> }).fingerprint;
    assert.equal(e.properties.form_element, elementName(fp));
  }
});

Deno.test("generated site: scroll depth on page leave and Core Web Vitals", async () => {
  const s = await featureSite();
  const depths = ofType(s, "$pageleave").map((e) => e.properties.depth_percent as number);
  assert.ok(depths.length >= 1_000);
  assert.ok(depths.every((d) => d >= 0 && d <= 100));
  assert.ok(depths.filter((d) => d < 25).length >= 100 && depths.filter((d) => d >= 90).length >= 100);
  const vitals = ofType(s, "$web_vitals");
  const metrics = tally(vitals, (e) => e.properties.metric as string);
  for (const m of ["LCP", "INP", "CLS"]) assert.ok((metrics.get(m) ?? 0) >= 100, `${m}: ${metrics.get(m)}`);
  const ratings = tally(vitals, (e) => e.properties.rating as string);
  assert.deepEqual([...ratings.keys()].sort(), ["good", "needs-improvement", "poor"]);
});

Deno.test("generated site: hits from many crawlers incl. impostors, robots.txt and sitemap reads", async () => {
  const s = await featureSite();
  assert.equal(s.hits.length, 2_000);
  const crawlers = tally(s.hits, (h) => h.crawler);
  assert.ok(crawlers.size >= 15, `${crawlers.size} crawlers`);
  const spoofed = tally(s.hits, (h) => (h.verification === "spoofed" ? h.crawler : null));
  assert.ok(spoofed.has("Googlebot") && spoofed.size >= 2, JSON.stringify([...spoofed]));
  assert.ok(s.hits.some((h) => h.verification === "verified"));
  const files = tally(s.hits, (h) => h.site_file);
  assert.ok(
    (files.get("robots.txt") ?? 0) >= 10 && (files.get("sitemap") ?? 0) >= 10,
    JSON.stringify([...files]),
  );
  assert.ok(s.events.some((e) => e.traffic === "ai_agent") && s.events.some((e) => e.traffic === "bot"));
});

Deno.test("generated site: some pages people read are never crawled, and crawlers cover different parts", async () => {
  const s = await featureSite();
  const viewed = new Set(humanViews(s).map((e) => e.path));
  const crawledBy = (c: string | null) =>
    new Set(s.hits.filter((h) => h.crawled && (!c || h.crawler === c)).map((h) => h.path));
  const anyCrawler = crawledBy(null);
  const neverCrawled = PAGES.filter((p) => viewed.has(p) && !anyCrawler.has(p));
  assert.ok(neverCrawled.length >= 5, `${neverCrawled.length} viewed pages never crawled`);
  const google = crawledBy("Googlebot"), gpt = crawledBy("GPTBot");
  assert.ok([...google].some((p) => PAGES.includes(p) && !gpt.has(p)), "GPTBot reads all Googlebot reads");
});
