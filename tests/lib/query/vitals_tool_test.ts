/**
 * behavior_performance on a site whose parts do not fit the part cache (a tiny PART_CACHE_MB here): the answer
 * comes from the parts' Web Vitals histograms. Page loads, visitors and rating shares equal a plain count over
 * the records, each percentile is within 1% of the exact nearest-rank one, and the notices say so; the same
 * site with the default budget answers exactly, without that notice.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { harness } from "../../tools/harness.ts";
import { distinct, humans, LAST7 } from "../../tools/expect.ts";
import { NOW, rng, storeSite } from "../../tools/generate.ts";

const LIMITS: Record<string, [number, number]> = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] };
const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(1, Math.ceil(p * s.length)) - 1];
};
const rating = (m: string, v: number) =>
  v <= LIMITS[m][0] ? "good" : v <= LIMITS[m][1] ? "needs_improvement" : "poor";

async function site(config: Record<string, unknown>) {
  const h = await harness({ visitors: 60, config });
  const r = rng(5);
  let n = 0;
  const views = h.site.events.filter((e) => e.traffic === "human" && e.event_type === "$pageview");
  const extra = views.flatMap((m) =>
    (["LCP", "INP", "CLS"] as const).map((metric) =>
      ({
        ...m,
        id: `60000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
        received_at: m.received_at + 500,
        event_type: "$web_vitals",
        properties: {
          metric,
          value: metric === "CLS" ? Math.round(r.next() * 400) / 1000 : 20 + Math.floor(r.next() * 6000),
        },
      }) as StoredEvent
    )
  );
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  h.deps.clock.set(NOW);
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  return h;
}

Deno.test("behavior_performance from histograms: exact counts and shares, percentiles within 1%, said in the notices", async () => {
  const h = await site({ partCacheBytes: 64 * 1024 });
  const a = await h.ask("behavior_performance", { period: "last_7_days" });
  const now = humans(h.site.events, LAST7).filter((e) => e.event_type === "$web_vitals");
  assert.equal(a.overall.visitors, distinct(now.map((e) => e.anonymous_id)));
  assert.equal(a.overall.page_loads, now.filter((e) => e.properties.metric === "LCP").length);
  for (const m of ["LCP", "INP", "CLS"]) {
    const vs = now.filter((e) => e.properties.metric === m).map((e) => Number(e.properties.value));
    const got = a.overall.vitals[m];
    assert.equal(got.measured, vs.length);
    for (const [p, k] of [[0.5, "p50"], [0.75, "p75"], [0.95, "p95"]] as const) {
      const exact = pct(vs, p);
      assert.ok(Math.abs(got[k] - exact) <= 0.01 * exact, `${m} ${k}: ${got[k]} for ${exact}`);
    }
    const share = (k: string) =>
      Math.round(vs.filter((v) => rating(m, v) === k).length / vs.length * 10000) / 10000;
    assert.deepEqual(got.shares, {
      good: share("good"),
      needs_improvement: share("needs_improvement"),
      poor: share("poor"),
    });
  }
  assert.ok(a.notices.some((x: string) => x.includes("within 1%")), JSON.stringify(a.notices));
  h.close();

  const exact = await site({});
  const b = await exact.ask("behavior_performance", { period: "last_7_days" });
  assert.ok(!b.notices.some((x: string) => x.includes("within 1%")));
  exact.close();
});
