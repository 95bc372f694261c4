/**
 * behavior_overview under a saved cohort: no figure of 1 to 4 visitors is the answer's whole less what it
 * shows (review #8: a page's withheld pageviews were the pageviews less the other top pages'; review #12:
 * visitors less engaged visitors told the 1 to 4 who did not engage, whose bounce rate is withheld). Real HTTP
 * ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";
import { FEWER_THAN_5 } from "../../lib/answers/privacy.ts";

const NOW = Date.parse("2026-11-18T10:30:00Z");
type Page = { name: string; visitors: unknown; pageviews: unknown };

Deno.test("overview under a cohort: the top pages' pageviews never leave 1 to 4 as the rest", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 12 visitors view "/", 3 of them /cancel-account too
    for (let v = 0; v < 12; v++) {
      await site.ingest(
        v < 3 ? [pageview(v, 0, "/"), pageview(v, 1, "/cancel-account")] : [pageview(v, 0, "/")],
      );
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    const plain = await site.read("behavior_overview", { period: "today" });
    assert.deepEqual(
      (plain.top_pages as Page[]).map((p) => [p.name, p.pageviews]),
      [["/", 12], ["/cancel-account", 3]],
    );

    const a = await site.read("behavior_overview", { period: "today", cohort: "home" });
    assert.equal(a.pageviews.value, 15);
    const pages = a.top_pages as Page[];
    const shown = pages.reduce((n, p) => n + (typeof p.pageviews === "number" ? p.pageviews : 0), 0);
    const rest = 15 - shown;
    assert.ok(
      rest === 0 || rest >= 5,
      `pageviews less the shown pages' is ${rest}: ${JSON.stringify(pages)}`,
    );
    assert.ok(
      !pages.some((p) => p.name === "/cancel-account"),
      `the page of 3 visitors is not named: ${JSON.stringify(pages)}`,
    );
  } finally {
    await site.close();
  }
});

Deno.test("overview under a cohort: engaged visitors are withheld where 1 to 4 did not engage", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 12 visitors: 9 view two pages (engaged), 3 view one (not engaged: one pageview within 10 s)
    for (let v = 0; v < 12; v++) {
      await site.ingest(v < 9 ? [pageview(v, 0, "/"), pageview(v, 1, "/pricing")] : [pageview(v, 0, "/")]);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    const plain = await site.read("behavior_overview", { period: "today" });
    assert.equal(plain.engaged_visitors.value, 9, "without a cohort the count is exact");

    const a = await site.read("behavior_overview", { period: "today", cohort: "home" });
    assert.equal(a.visitors.value, 12);
    assert.equal(a.bounce_rate.value, null, "3 bounced: the rate is withheld");
    assert.equal(a.engaged_visitors.value, null, "12 less the engaged would tell the 3");

    // with 6 not engaged the count stands
    for (let v = 12; v < 15; v++) await site.ingest([pageview(v, 0, "/")]);
    const b = await site.read("behavior_overview", { period: "today", cohort: "home" });
    assert.equal(b.engaged_visitors.value, 9);
    assert.notEqual(b.engaged_visitors.value, FEWER_THAN_5);
  } finally {
    await site.close();
  }
});
