/** Retention: cohorts by a visitor's first active period in scope, and who was active again later. */
import { bucketer, bucketsBetween } from "../../time/buckets.ts";
import type { EvBatch } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { matchMasks } from "../scan/filters.ts";
import type { RetentionOptions, RetentionResult } from "../types.ts";

export function retention(c: Ctx, opts: RetentionOptions): RetentionResult {
  const periods = bucketsBetween(c.scope.from, c.scope.to, opts.period, c.scope.timezone);
  const index = new Map(periods.map((p, i) => [p.label, i]));
  const bucketOf = bucketer(opts.period, c.scope.timezone);
  const words = Math.max(1, Math.ceil(periods.length / 32));
  const active = new Uint32Array(c.nVis * words);
  const seen = new Uint8Array(c.nVis);
  const masks = matchMasks(c, c.scope.filters);
  c.batches.forEach((e: EvBatch, b) => {
    const m = masks[b], hb = c.human[b], tr = eventView(e, "traffic").codes;
    for (let i = 0; i < e.n; i++) {
      if (!m[i] || !hb[tr[i]]) continue;
      const p = index.get(bucketOf(e.t[i]))!;
      const v = e.vis[i];
      active[v * words + (p >> 5)] |= 1 << (p & 31);
      seen[v] = 1;
    }
  });
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(opts.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (let v = 0; v < c.nVis; v++) {
    if (!seen[v]) continue;
    let first = -1;
    for (let p = 0; p < periods.length; p++) {
      if (!(active[v * words + (p >> 5)] & (1 << (p & 31)))) continue;
      if (first < 0) {
        first = p;
        cohorts[p].visitors++;
      }
      const d = p - first;
      if (d < cohorts[first].counts.length) cohorts[first].counts[d]++;
    }
  }
  return { cohorts };
}
