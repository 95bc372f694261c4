/**
 * behavior_pages: engagement time and scroll depth are means over page-leave reports, so they are withheld
 * where fewer than 5 visitors reported them, however many viewed the page (review #16: 10 viewers and one
 * report showed that visitor's own time and depth). Sorted by one of them, pages go by what they show, those
 * withheld last by path, never placed by the value they hide (review #18); under a saved cohort, by what the
 * guarded answer shows. On a small site (the scan) and on a site too large for its part cache (the rollups
 * answer: checked), the same answers. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { Source } from "../../lib/query/columns/source.ts";
import { RollupSource } from "../../lib/query/rollup/source.ts";
import { saveCohort } from "../helpers/saved.ts";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");
let seq = 0;
const ev = (v: string, path: string, type: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: v,
  session_id: `s-${v}`,
  sequence_no: seq++,
  platform: "web",
  event_type: type,
  screen: path,
  device_time: new Date(NOW - 3_600_000 + seq).toISOString(),
  properties: { path, url: `https://acme.test${path}`, ...props },
});
const leave = (v: string, path: string, ms: number, depth?: number) =>
  ev(v, path, "$pageleave", {
    engagement_time_ms: ms,
    ...(depth === undefined ? {} : { depth_percent: depth }),
  });

type Row = { page: string; visitors: number; engagement_time_s: unknown; scroll_depth_percent: unknown };
type Pages = { pages: Row[]; pages_total: number };

async function answers(config: Record<string, unknown>) {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, ...config },
  });
  try {
    const send = async (batch: unknown[]) => {
      const res = await site.ingest(batch);
      assert.equal(res.status, 204, await res.text());
    };
    // /a: 10 viewers, one reports leaving it (a long time, deep), 4 more give only the time (no depth)
    for (let v = 0; v < 10; v++) {
      const batch = [ev(`a${v}`, "/a", "$pageview")];
      if (v === 0) batch.push(leave(`a${v}`, "/a", 123_000, 90));
      else if (v < 5) batch.push(leave(`a${v}`, "/a", 100_000));
      await send(batch);
    }
    // /b: 6 viewers, all report (10 s, 50%); /c: 5 viewers, 3 report (50 s); /d: 6 viewers, all report (20 s)
    for (let v = 0; v < 6; v++) {
      await send([ev(`b${v}`, "/b", "$pageview"), leave(`b${v}`, "/b", 10_000, 50)]);
    }
    for (let v = 0; v < 5; v++) {
      await send([ev(`c${v}`, "/c", "$pageview"), ...(v < 3 ? [leave(`c${v}`, "/c", 50_000, 80)] : [])]);
    }
    for (let v = 0; v < 6; v++) {
      await send([ev(`d${v}`, "/d", "$pageview"), leave(`d${v}`, "/d", 20_000, 30)]);
    }
    site.deps.clock.set(NOW + 3_600_000);
    await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
    // whether the rollups answer the pages question themselves (null: the scan would)
    const rollups = new RollupSource(site.deps, new Source(site.deps));
    const [fromRollups] = await rollups.answer({
      org: site.t.org,
      env: "production",
      from: Date.parse("2026-11-18T00:00:00Z"),
      to: NOW + 3_600_000,
      timezone: "UTC",
    }, [{
      metrics: ["pageviews", "viewers", "engagement_time_s", "scroll_depth_percent", "reporters"],
      breakdown: ["page"],
    }]);
    const read = (input: Record<string, unknown>) =>
      site.read("behavior_pages", { period: "today", ...input }) as Promise<Pages>;
    return {
      fromRollups,
      all: await read({}),
      desc: await read({ sort_by: "engagement_time_s" }),
      asc: await read({ sort_by: "engagement_time_s", order: "asc" }),
      depth: await read({ sort_by: "scroll_depth_percent" }),
      first: await read({ sort_by: "engagement_time_s", limit: 1 }),
      second: await read({ sort_by: "engagement_time_s", limit: 1, offset: 1 }),
    };
  } finally {
    await site.close();
  }
}

Deno.test("pages: engagement and depth of 1 to 4 visitors reporting them are withheld, sorted by what is shown, scanned or from rollups", async () => {
  const scanned = await answers({});
  // a part cache too small for the period's parts: the rollups answer
  const tables = await answers({ partCacheBytes: 4096 });
  const reporters = new Map(tables.fromRollups!.rows.map((r) => [r.key.page, r.metrics.reporters]));
  assert.deepEqual(Object.fromEntries(reporters), { "/a": 1, "/b": 5, "/c": 3, "/d": 5 });
  for (const [how, a] of [["scan", scanned], ["rollups", tables]] as const) {
    const of = (p: string) => a.all.pages.find((x) => x.page === p)!;
    const means = (p: string) => [of(p).engagement_time_s, of(p).scroll_depth_percent];
    assert.equal(of("/a").visitors, 10, how);
    assert.deepEqual(means("/a"), [null, null], how);
    assert.deepEqual(means("/b"), [10, 50], how);
    assert.deepEqual(means("/c"), [null, null], how);
    assert.deepEqual(means("/d"), [20, 30], how);
    const order = (x: Pages) => x.pages.map((p) => p.page);
    assert.deepEqual(order(a.desc), ["/d", "/b", "/a", "/c"], how);
    assert.deepEqual(order(a.asc), ["/b", "/d", "/a", "/c"], how);
    assert.deepEqual(order(a.depth), ["/b", "/d", "/a", "/c"], how);
    assert.deepEqual([order(a.first), order(a.second)], [["/d"], ["/b"]], how);
    assert.equal(a.first.pages_total, 4, how);
  }
  assert.deepEqual(tables.all.pages, scanned.all.pages);
});

Deno.test("pages under a cohort: sorted by what the guarded answer shows, pages of 1 to 4 visitors last by path", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // every visitor views "/" and one page: /p1 1 visitor, /p2 2, /p3 3, /p4 4, /big 6
    const pages = ["/p1", "/p2", "/p2", "/p3", "/p3", "/p3", "/p4", "/p4", "/p4", "/p4"];
    for (let v = 0; v < 16; v++) {
      const res = await site.ingest([
        ev(`c${v}`, "/", "$pageview"),
        ev(`c${v}`, pages[v] ?? "/big", "$pageview"),
      ]);
      assert.equal(res.status, 204, await res.text());
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "all", { kind: "page", path: "/" });
    const order = async (input: Record<string, unknown>) =>
      ((await site.read("behavior_pages", { period: "today", cohort: "all", ...input })) as Pages).pages
        .map((p) => [p.page, p.visitors]);
    const few = "fewer than 5";
    const last = [["/p1", few], ["/p2", few], ["/p3", few], ["/p4", few]];
    assert.deepEqual(await order({ sort_by: "visitors" }), [["/", 16], ["/big", 6], ...last]);
    assert.deepEqual(await order({ sort_by: "visitors", order: "asc" }), [["/big", 6], ["/", 16], ...last]);
    assert.deepEqual(await order({ sort_by: "pageviews", limit: 2, offset: 2 }), last.slice(0, 2));
  } finally {
    await site.close();
  }
});
