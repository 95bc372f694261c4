/**
 * behavior_performance under a saved cohort: a rating share times the measured page loads tells how many
 * loads had that rating, so where a rating holds 1 to 4 page loads (1 poor LCP of 6: one visitor) the
 * shares are withheld, as a bounce rate beside 1 to 4 bounced sessions is (spec answer rule 5); where every
 * rating holds none or 5 and more they are given. The percentiles' ratings can tell the same (of 6 loads,
 * p75 good and p95 poor: exactly 1 poor): then they are withheld too. Without a cohort counts stay exact and
 * everything is given. On a small site and on a site too large for its part cache (real HTTP ingest and
 * reads on a real KV file), and `tellsFew` against every split of up to 40 loads.
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";
import { tellsFew } from "../../tools/behavior_performance.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");

const event = (v: number, seq: number, type: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: `v${v}`,
  session_id: `s${v}`,
  sequence_no: seq,
  platform: "web",
  event_type: type,
  screen: "/",
  properties: { path: "/", url: "https://acme.test/", ...props },
  device_time: new Date(NOW - 3_600_000 + 10_000 * v + seq).toISOString(),
});
const load = (v: number, lcp: number) => [
  event(v, 0, "$pageview"),
  event(v, 1, "$web_vitals", { name: "LCP", metric: "LCP", value: lcp }),
];

type Lcp = {
  measured: unknown;
  p50: unknown;
  p75: unknown;
  p95: unknown;
  rating: unknown;
  shares: Record<string, number> | null;
};
type Answer = { overall: { vitals: { LCP: Lcp } }; groups: { name: string; vitals: { LCP: Lcp } | null }[] };

async function openWith(config: Record<string, unknown>) {
  const site = await openSite({
    now: NOW - 3_600_000,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, ...config },
  });
  await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });
  const add = async (from: number, to: number, lcp: number) => {
    for (let v = from; v < to; v++) assert.equal((await site.ingest(load(v, lcp))).status, 204);
  };
  const ask = async (input: Record<string, unknown>): Promise<Answer & { notices: string[] }> => {
    site.deps.clock.advance(3_600_000);
    await compact(site.deps, site.t.org, "production", "ev", { graceMs: 0 });
    return await site.read("behavior_performance", { period: "today", ...input });
  };
  return { site, add, ask };
}

const NOTICE = "under a saved cohort, rating shares are withheld where a rating holds 1 to 4 page loads";
const PERCENTILES = ", and percentiles where their ratings would tell such a count";

for (const [how, config] of [["small site", {}], ["large site", { partCacheBytes: 4096 }]] as const) {
  Deno.test(`performance under a cohort (${how}): rating shares that tell 1 to 4 page loads are withheld`, async () => {
    const { site, add, ask } = await openWith(config);
    try {
      // six visitors of the cohort load "/": five good LCPs, one poor
      await add(0, 5, 1010);
      await add(5, 6, 4510);
      const plain = await ask({});
      assert.deepEqual(plain.overall.vitals.LCP.shares, { good: 0.8333, needs_improvement: 0, poor: 0.1667 });
      assert.ok(!plain.notices.includes(NOTICE));

      assert.equal(plain.overall.vitals.LCP.p95, 4510);

      // under the cohort: shares withheld, and the percentiles (p75 good, p95 poor: 1 poor of 6)
      const a = await ask({ cohort: "home" });
      const lcps = (
        x: Answer,
      ) => [x.overall.vitals.LCP, ...x.groups.flatMap((g) => g.vitals ? [g.vitals.LCP] : [])];
      assert.ok(lcps(a).length >= 2, JSON.stringify(a));
      for (const lcp of lcps(a)) {
        assert.equal(lcp.measured, 6);
        const { p50, p75, p95, rating, shares } = lcp;
        assert.deepEqual({ p50, p75, p95, rating, shares }, {
          p50: null,
          p75: null,
          p95: null,
          rating: null,
          shares: null,
        }, JSON.stringify(lcp));
      }
      assert.ok(a.notices.includes(NOTICE + PERCENTILES), JSON.stringify(a.notices));

      // 15 more good loads (20 good, 1 poor): every percentile good tells no count, the shares still would
      await add(6, 21, 1010);
      const b = await ask({ cohort: "home" });
      for (const lcp of lcps(b)) {
        assert.deepEqual([lcp.p50, lcp.p75, lcp.p95, lcp.rating, lcp.shares], [
          1010,
          1010,
          1010,
          "good",
          null,
        ]);
      }
      assert.ok(b.notices.includes(NOTICE), JSON.stringify(b.notices));

      // five more poor loads (20 good, 6 poor): every rating holds 0 or 5+ page loads, all is given
      await add(21, 26, 4510);
      const c = await ask({ cohort: "home" });
      for (const lcp of lcps(c)) {
        assert.deepEqual([lcp.p75, lcp.p95], [1010, 4510]);
        assert.deepEqual(lcp.shares, { good: 0.7692, needs_improvement: 0, poor: 0.2308 });
      }
      assert.ok(!c.notices.some((x) => x.startsWith(NOTICE)), JSON.stringify(c.notices));
    } finally {
      await site.close();
    }
  });
}

/** Nearest rank over good (1000), needs improvement (3000) and poor (5000) LCPs, as the tool takes it. */
const rankValue = (g: number, m: number, n: number, p: number) => {
  const r = Math.max(1, Math.ceil(p * n));
  return r <= g ? 1000 : r <= g + m ? 3000 : 5000;
};

Deno.test("performance: tellsFew is true exactly where the percentiles' ratings leave a rating 1 to 4 loads", () => {
  for (let n = 1; n <= 40; n++) {
    const splits: [number, number, number][] = [];
    for (let g = 0; g <= n; g++) for (let m = 0; g + m <= n; m++) splits.push([g, m, n - g - m]);
    const seen = (s: [number, number, number]) => [0.5, 0.95, 0.75].map((p) => rankValue(s[0], s[1], n, p));
    for (const split of splits) {
      const shown = seen(split);
      // every split the percentiles' ratings leave possible
      const possible = splits.filter((x) => seen(x).join() === shown.join());
      const pinned = [0, 1, 2].some((k) => possible.every((x) => x[k] >= 1 && x[k] <= 4));
      const got = tellsFew("LCP", n, [[0.5, shown[0]], [0.95, shown[1]], [0.75, shown[2]]]);
      assert.equal(got, pinned, `${n} loads split ${split}: ${shown}`);
    }
  }
});
