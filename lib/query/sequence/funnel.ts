/**
 * Funnels: units (visitors, or sessions) that reached each step in order, optionally within a window from
 * step 1. A unit's counted attempt is its furthest-reaching one (the earliest start among equals), matched
 * greedily; its step times give the median time from the previous step, its start row the split value.
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import { firstAtLeast } from "../sorted.ts";
import type { FunnelOptions, FunnelResult, FunnelSplit, FunnelStep } from "../sequence_types.ts";
import { cmpRef, forEachSession, type Ref, sessionsWith } from "./rows.ts";
import { stepBits } from "./steps.ts";

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

/** What a group of units reached: counts per step and, per step after the first, the times from the previous. */
export class Tally {
  reached: number[];
  gaps: number[][];
  constructor(n: number) {
    this.reached = new Array(n).fill(0);
    this.gaps = Array.from({ length: n }, () => []);
  }
  add(best: number, times: Float64Array) {
    for (let i = 0; i < best; i++) this.reached[i]++;
    for (let i = 1; i < best; i++) this.gaps[i].push(times[i] - times[i - 1]);
  }
  merge(o: Tally) {
    o.reached.forEach((n, i) => this.reached[i] += n);
    o.gaps.forEach((g, i) => {
      for (const x of g) this.gaps[i].push(x);
    });
  }
  steps(): FunnelStep[] {
    const r = this.reached;
    return r.map((count, i) => ({
      index: i + 1,
      count,
      conversion_from_start: ratio(count, r[0]),
      conversion_from_previous: i === 0 ? null : ratio(count, r[i - 1]),
      dropped: i === 0 ? 0 : r[i - 1] - count,
      median_ms_from_previous: i === 0 ? null : median(this.gaps[i]),
    }));
  }
}

/** The middle value; for an even count, the mean of the two middle values. */
export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const a = Float64Array.from(xs).sort(), h = a.length >> 1;
  return a.length % 2 ? a[h] : (a[h - 1] + a[h]) / 2;
}

export function funnel(c: Ctx, opts: FunnelOptions): FunnelResult {
  const bits = stepBits(c, opts.steps);
  const nSteps = opts.steps.length;
  const total = new Tally(nSteps);
  const groups = new Map<string | null, Tally>();
  const splitField = opts.split?.field;
  const cur = new Float64Array(nSteps), best = new Float64Array(nSteps);
  const cmp = cmpRef(c);
  const walk = (rows: Ref[]) => {
    let reach = 0, start = -1;
    for (let s = 0; s < rows.length && reach < nSteps; s++) {
      if (!(bits[rows[s].b][rows[s].i] & 1)) continue;
      const t0 = cur[0] = c.batches[rows[s].b].t[rows[s].i];
      let n = 1, cut = false;
      for (let j = s + 1; j < rows.length && n < nSteps; j++) {
        const r = rows[j], t = c.batches[r.b].t[r.i];
        if (opts.window_ms !== undefined && t - t0 > opts.window_ms) {
          cut = true;
          break;
        }
        if (bits[r.b][r.i] & (1 << n)) cur[n++] = t;
      }
      if (n > reach) {
        reach = n;
        start = s;
        best.set(cur.subarray(0, n));
      }
      // an attempt the window did not cut matched each step no later than any later start could: none of
      // them reaches further
      if (!cut) break;
    }
    if (reach === 0) return;
    total.add(reach, best);
    if (splitField === undefined) return;
    const r = rows[start], v = eventView(c.batches[r.b], splitField);
    const value = v.codes.length ? v.values[v.codes[r.i]] : null;
    let g = groups.get(value);
    if (!g) groups.set(value, g = new Tally(nSteps));
    g.add(reach, best);
  };
  if (opts.by === "session") {
    forEachSession(c, (_s, _v, rows) => walk(rows.filter((r) => bits[r.b][r.i])), sessionsWith(c, bits));
  } else {
    // per batch, the human rows that match a step, in row order: a visitor's runs take theirs by range
    const hits = c.batches.map((e, b) => {
      const hb = c.human[b], tr = eventView(e, "traffic").codes, bb = bits[b], out: number[] = [];
      for (let i = 0; i < e.n; i++) if (bb[i] && hb[tr[i]]) out.push(i);
      return Int32Array.from(out);
    });
    const cursor = new Int32Array(c.batches.length);
    const { rb, rk } = visitorOrder(c);
    let p = 0;
    while (p < rb.length) {
      const vis = c.batches[rb[p]].runVis[rk[p]];
      const rows: Ref[] = [];
      let runs = 0;
      for (; p < rb.length && c.batches[rb[p]].runVis[rk[p]] === vis; p++) {
        const b = rb[p], e = c.batches[b], list = hits[b];
        const start = e.runStart[rk[p]], end = e.runStart[rk[p] + 1];
        let q = cursor[b];
        if (q > 0 && list[q - 1] >= start) q = firstAtLeast(list, start);
        while (q < list.length && list[q] < start) q++;
        const from = rows.length;
        for (; q < list.length && list[q] < end; q++) rows.push({ b, i: list[q] });
        cursor[b] = q;
        if (rows.length > from) runs++;
      }
      if (rows.length === 0) continue;
      if (runs > 1) rows.sort(cmp);
      walk(rows);
    }
  }
  return funnelResult(opts, total, groups);
}

/** The answer from the tallies: all units, and with a split its top values (then "other"). */
export function funnelResult(
  opts: FunnelOptions,
  total: Tally,
  groups: Map<string | null, Tally>,
): FunnelResult {
  const nSteps = opts.steps.length;
  const out: FunnelResult = { unit: opts.by === "session" ? "session" : "visitor", steps: total.steps() };
  if (opts.split) {
    const ranked = [...groups].sort(([x, a], [y, b]) =>
      b.reached[0] - a.reached[0] || (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1)
    );
    const splits: FunnelSplit[] = ranked.slice(0, opts.split.top).map(([value, t]) => ({
      value,
      other: false,
      steps: t.steps(),
    }));
    if (ranked.length > opts.split.top) {
      const rest = new Tally(nSteps);
      for (const [, t] of ranked.slice(opts.split.top)) rest.merge(t);
      splits.push({ value: null, other: true, steps: rest.steps() });
    }
    out.splits = splits;
    out.split_values = groups.size;
  }
  return out;
}
