/**
 * Retention from rollups (the scan's is sequence/retention.ts): a visitor's periods with an event are the
 * periods of the hours whose totals rows hold it (people's visitor sets), its cohort the first of them. Exact
 * when every event counts (no cohort or returning step, no filter, no cohort of visitors: then a visitor
 * entered at its first event and every later event returns it) and each hour lies in one period (offsets of
 * whole hours). One Uint32 of period bits per visitor number (periods past 32: the scan answers).
 */
import { bucketsBetween } from "../../time/buckets.ts";
import type { RetentionOptions, RetentionResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { wholeHourOffsets } from "./answer.ts";
import { HOUR_MS, TOTAL } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import { rowsOf } from "./answer.ts";
import { releaseViews } from "./let_go.ts";

/** Why rollups cannot answer this retention question, or null. */
export function retentionBlocker(s: Scope, o: RetentionOptions): string | null {
  if (s.cohort) return "a cohort";
  if (s.filters?.length) return "a filter";
  if (o.cohort || o.returning) return "a cohort or returning step";
  if (!wholeHourOffsets(s.timezone, s.from, s.to)) return "a timezone offset that is not whole hours";
  if (bucketsBetween(s.from, s.to, o.period, s.timezone).length > 32) return "more than 32 periods";
  return null;
}

/** The answer from the parts' (and raw tail's) totals rows with their sets; `inside` from hoursInside. */
export function retentionFromRollups(
  parts: RollupParts[],
  inside: Set<number>[],
  s: Scope,
  o: RetentionOptions,
  space: number,
): RetentionResult {
  const periods = bucketsBetween(s.from, s.to, o.period, s.timezone);
  const starts = periods.map((p) => p.start);
  const periodOf = new Map<number, number>();
  const periodAt = (hour: number) => {
    let p = periodOf.get(hour);
    if (p === undefined) {
      const t = Math.max(hour * HOUR_MS, s.from);
      p = 0;
      while (p + 1 < starts.length && starts[p + 1] <= t) p++;
      periodOf.set(hour, p);
    }
    return p;
  };
  const traffic = new Set(s.traffic ?? ["human"]);
  let active = new Uint32Array(Math.max(1, space));
  parts.forEach((part, ri) => {
    const r = part.field(TOTAL);
    const tpOk = part.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
    const human = part.traffics.map((t) => t === "human" && traffic.has(t));
    for (const i of rowsOf(r, TOTAL)) {
      if (!tpOk[r.tp[i]] || !human[r.traffic[i]] || !inside[ri].has(r.hour[i])) continue;
      const bit = 1 << periodAt(r.hour[i]);
      const bytes = r.sets;
      let prev = -1;
      for (let k = r.visAt[i], end = r.viewAt[i]; k < end;) {
        let d = bytes[k++];
        if (d >= 0x80) {
          d &= 0x7f;
          let shift = 7, c: number;
          do {
            c = bytes[k++];
            d += (c & 0x7f) * 2 ** shift;
            shift += 7;
          } while (c & 0x80);
        }
        prev += d + 1;
        if (prev >= active.length) {
          const grown = new Uint32Array(Math.max(prev + 1, active.length * 2));
          grown.set(active);
          releaseViews([active]);
          active = grown;
        }
        active[prev] |= bit;
      }
    }
  });
  const cohorts = periods.map((p, i) => ({
    cohort: String(p.label),
    visitors: 0,
    counts: new Array(Math.min(o.periods ?? Infinity, periods.length - 1 - i) + 1).fill(0) as number[],
  }));
  for (let v = 0; v < active.length; v++) {
    const bits = active[v];
    if (!bits) continue;
    const first = 31 - Math.clz32(bits & -bits);
    const c = cohorts[first];
    c.visitors++;
    for (let d = 0; d < c.counts.length; d++) if (bits & (1 << (first + d))) c.counts[d]++;
  }
  // 4 bytes a visitor number (~15 MB at 10M events), this question's alone: freed now, not at V8's next full
  // collection
  releaseViews([active]);
  return { cohorts };
}
