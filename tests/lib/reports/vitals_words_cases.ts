/**
 * A vitals finding says its p75 as precisely as its rating needs (a CLS of 0.104 read "0.1 (needs
 * improvement)", which reads as good) and counts the page loads that measured the metric, not all of them.
 */
import assert from "node:assert/strict";
import { vitalsFindings } from "../../../lib/reports/findings/vitals.ts";
import type { FindingContext } from "../../../lib/reports/findings/common.ts";

Deno.test("report vitals: a CLS p75 to three decimals, and the page loads that measured it", async () => {
  const c = {
    touchpoint: { id: "tp_1", name: "Acme site" },
    period: { kind: "weekly", key: "2026-W47", period: "2026-11-16..2026-11-22" },
    ask: () => Promise.reject(new Error("not asked")),
  } as unknown as FindingContext;
  const vital = (p75: number | null, previous: number | null, measured: number) => ({
    p75,
    previous_p75: previous,
    rating: null,
    measured,
  });
  const perf = {
    groups: [{
      name: "/",
      page_loads: 65,
      vitals: { LCP: vital(null, null, 0), INP: vital(null, null, 0), CLS: vital(0.104, 0.09, 40) },
    }],
  };
  const found = await vitalsFindings(
    c,
    perf,
    () => Promise.resolve({ groups: [{ name: "/", page_loads: 60 }] }),
  );
  assert.equal(found.length, 1);
  assert.match(found[0].claim, /^CLS on \/ got worse: p75 0\.104 \(needs improvement\), was 0\.09 \(good\)/);
  assert.match(found[0].claim, /; 40 page loads measured\.$/);
  assert.equal(found[0].numbers.measured, 40);
});
