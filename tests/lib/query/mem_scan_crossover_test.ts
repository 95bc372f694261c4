/**
 * The planner's crossover (engine.ts siteFits, scan/contexts.ts tooLarge): a site whose decoded parts would
 * fill more than half the scan's share of the budget is answered from rollups and histograms, not by
 * holding its parts decoded. At 1M events the month's parts filled the 192 MB scan budget with no room for
 * what questions keep; rollups answered every tool faster there, and one engine peaked ~120 MB lower.
 * Seen here through Web Vitals: from histograms the answer says its percentiles are within 1%.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { rollupCacheBytes } from "../../../lib/query/rollup/source.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { harness } from "../../tools/harness.ts";
import { NOW, rng, storeSite } from "../../tools/generate.ts";

/** engine.ts SCAN_BYTES_PER_ROW: decoded bytes a scan holds per row */
const SCAN_BYTES_PER_ROW = 170;

Deno.test("crossover: parts that would fill more than half the scan's budget are answered from rollups", async () => {
  const h = await harness({ visitors: 60 });
  try {
    const r = rng(7);
    let n = 0;
    const views = h.site.events.filter((e) => e.traffic === "human" && e.event_type === "$pageview");
    const vitals = views.map((m) =>
      ({
        ...m,
        id: `70000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
        received_at: m.received_at + 500,
        event_type: "$web_vitals",
        properties: { metric: "LCP", value: 20 + Math.floor(r.next() * 6000) },
      }) as StoredEvent
    );
    await storeSite(h.deps.kv, { events: vitals, hits: [], identifiers: [] });
    h.deps.clock.set(NOW);
    await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
    let rows = 0;
    for (const { meta } of await listParts(h.deps.kv, h.t.org, "production", "ev")) rows += meta.rows;
    // a budget whose scan share (two thirds: a third is the rollups') the parts fill to two thirds
    const scanShare = Math.ceil(rows * SCAN_BYTES_PER_ROW * 1.5);
    let budget = Math.ceil(scanShare * 1.5);
    while (budget - rollupCacheBytes(budget) < scanShare) budget++;
    const ask = async (partCacheBytes: number) => {
      const app = createApp({ ...h.deps, config: { ...h.deps.config, partCacheBytes } });
      const res = await app.request("/v1/read/behavior_performance", {
        method: "POST",
        headers: { authorization: `Bearer ${h.t.readKey}`, "content-type": "application/json" },
        body: JSON.stringify({ period: "last_7_days" }),
      });
      assert.equal(res.status, 200);
      return (await res.json()) as { notices: string[]; overall: { vitals: { LCP: { measured: number } } } };
    };
    const half = await ask(budget);
    assert.ok(half.notices.some((x) => x.includes("within 1%")), JSON.stringify(half.notices));
    // a budget the parts fill to a third: the scan, exact
    const roomy = await ask(budget * 3);
    assert.ok(!roomy.notices.some((x) => x.includes("within 1%")), JSON.stringify(roomy.notices));
    assert.equal(half.overall.vitals.LCP.measured, roomy.overall.vitals.LCP.measured);
  } finally {
    h.close();
  }
});
