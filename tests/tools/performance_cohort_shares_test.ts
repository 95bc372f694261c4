/**
 * behavior_performance under a saved cohort: a rating share times the measured page loads tells how many
 * loads had that rating, so where a rating holds 1 to 4 page loads (1 poor LCP of 6: one visitor) the
 * shares are withheld, as a bounce rate beside 1 to 4 bounced sessions is (spec answer rule 5); where every
 * rating holds none or 5 and more they are given. Without a cohort counts stay exact and shares are given.
 * On a small site and on a site too large for its part cache. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

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

type Lcp = { measured: unknown; p75: unknown; shares: Record<string, number> | null };
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

      const a = await ask({ cohort: "home" });
      const lcps = [
        a.overall.vitals.LCP,
        ...a.groups.map((g) => g.vitals?.LCP).filter((x) => x !== undefined),
      ];
      assert.ok(lcps.length >= 2, JSON.stringify(a));
      for (const lcp of lcps) {
        assert.equal(lcp!.measured, 6);
        assert.equal(lcp!.p75, 1010); // 6 visitors reported it: the percentiles stand
        assert.equal(lcp!.shares, null, JSON.stringify(lcp));
      }
      assert.ok(a.notices.includes(NOTICE), JSON.stringify(a.notices));

      // five more poor loads: every rating holds 0 or 5+ page loads, the shares are given
      await add(6, 11, 4510);
      const b = await ask({ cohort: "home" });
      assert.deepEqual(b.overall.vitals.LCP.shares, { good: 0.4545, needs_improvement: 0, poor: 0.5455 });
      assert.ok(!b.notices.includes(NOTICE), JSON.stringify(b.notices));
    } finally {
      await site.close();
    }
  });
}
