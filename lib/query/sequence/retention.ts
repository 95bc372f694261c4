/**
 * Retention: cohorts by the period a visitor entered (first event in scope, or first time they did the
 * cohort step), and in which later periods they returned (any event, or the returning step, at or after
 * the moment they entered).
 */
import { bucketsBetween } from "../../time/buckets.ts";
import { lastAtMost } from "../sorted.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { RetentionOptions, RetentionResult } from "../sequence_types.ts";
import { stepBits } from "./steps.ts";

export function retention(c: Ctx, opts: RetentionOptions): RetentionResult {
  const periods = bucketsBetween(c.scope.from, c.scope.to, opts.period, c.scope.timezone);
  const starts = Float64Array.from(periods, (p) => p.start);
  const words = Math.max(1, Math.ceil(periods.length / 32));
  const masks = matchMasks(c, c.scope.filters);
  const enterBits = opts.cohort ? stepBits(c, [opts.cohort]) : null;
  const returnBits = opts.returning ? stepBits(c, [opts.returning]) : null;
  // when each visitor entered: their first row doing the cohort step, or (without one) their first row
  const entered = new Float64Array(c.nVis).fill(Infinity);
  if (enterBits) {
    c.batches.forEach((e, b) => {
      const m = masks[b], hb = c.human[b], tr = eventView(e, "traffic").codes, eb = enterBits[b];
      for (let i = 0; i < e.n; i++) {
        if (eb[i] && m[i] && hb[tr[i]] && e.t[i] < entered[e.vis[i]]) entered[e.vis[i]] = e.t[i];
      }
    });
  }
  // periods with a returning row at or after entering (without a cohort step every row is, and the pass
  // finds the first row on the way)
  const active = new Uint32Array(c.nVis * words);
  c.batches.forEach((e, b) => {
    const m = masks[b], hb = c.human[b], tr = eventView(e, "traffic").codes, rbits = returnBits?.[b];
    for (let i = 0; i < e.n; i++) {
      if (!m[i] || !hb[tr[i]]) continue;
      const v = e.vis[i], t = e.t[i];
      if (enterBits) {
        if (t < entered[v]) continue;
      } else if (t < entered[v]) entered[v] = t;
      if (rbits && !rbits[i]) continue;
      const p = lastAtMost(starts, t); // the last period starting at or before t
      active[v * words + (p >> 5)] |= 1 << (p & 31);
    }
  });
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(opts.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (let v = 0; v < c.nVis; v++) {
    if (entered[v] === Infinity) continue;
    const first = lastAtMost(starts, entered[v]);
    const counts = cohorts[first].counts;
    cohorts[first].visitors++;
    for (let d = 0; d < counts.length; d++) {
      const p = first + d;
      if (active[v * words + (p >> 5)] & (1 << (p & 31))) counts[d]++;
    }
  }
  return { cohorts };
}
