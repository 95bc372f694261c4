/**
 * Retention: cohorts by the period a visitor entered (first event in scope, or first time they did the
 * cohort step), and in which later periods they returned (any event, or the returning step, at or after
 * the moment they entered).
 */
import { bucketer, bucketsBetween } from "../../time/buckets.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { RetentionOptions, RetentionResult } from "../types.ts";
import { stepBits } from "./steps.ts";

/** Rows in scope (filters applied, human) that do a step, or every such row without a step. */
function rowsOf(c: Ctx, masks: Uint8Array[], step: RetentionOptions["cohort"]): Uint8Array[] {
  const bits = step ? stepBits(c, [step]) : null;
  return c.batches.map((e, b) => {
    const m = masks[b], hb = c.human[b], tr = eventView(e, "traffic").codes, sb = bits?.[b];
    const out = new Uint8Array(e.n);
    for (let i = 0; i < e.n; i++) out[i] = m[i] && hb[tr[i]] && (!sb || sb[i]) ? 1 : 0;
    return out;
  });
}

export function retention(c: Ctx, opts: RetentionOptions): RetentionResult {
  const periods = bucketsBetween(c.scope.from, c.scope.to, opts.period, c.scope.timezone);
  const index = new Map(periods.map((p, i) => [p.label, i]));
  const bucketOf = bucketer(opts.period, c.scope.timezone);
  const words = Math.max(1, Math.ceil(periods.length / 32));
  const masks = matchMasks(c, c.scope.filters);
  const entering = rowsOf(c, masks, opts.cohort);
  const returning = opts.returning || opts.cohort ? rowsOf(c, masks, opts.returning) : entering;
  // when each visitor entered: their first entering row
  const entered = new Float64Array(c.nVis).fill(Infinity);
  c.batches.forEach((e, b) => {
    const m = entering[b];
    for (let i = 0; i < e.n; i++) if (m[i] && e.t[i] < entered[e.vis[i]]) entered[e.vis[i]] = e.t[i];
  });
  // periods with a returning row at or after entering (a visitor's first period is the cohort's)
  const active = new Uint32Array(c.nVis * words);
  c.batches.forEach((e, b) => {
    const m = returning[b];
    for (let i = 0; i < e.n; i++) {
      if (!m[i] || e.t[i] < entered[e.vis[i]]) continue;
      const p = index.get(bucketOf(e.t[i]))!;
      active[e.vis[i] * words + (p >> 5)] |= 1 << (p & 31);
    }
  });
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(opts.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (let v = 0; v < c.nVis; v++) {
    if (entered[v] === Infinity) continue;
    const first = index.get(bucketOf(entered[v]))!;
    const counts = cohorts[first].counts;
    cohorts[first].visitors++;
    for (let d = 0; d < counts.length; d++) {
      const p = first + d;
      if (active[v * words + (p >> 5)] & (1 << (p & 31))) counts[d]++;
    }
  }
  return { cohorts };
}
