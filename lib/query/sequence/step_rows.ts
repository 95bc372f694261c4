/**
 * Step rows of a streamed funnel (funnel_stream.ts, funnel_column.ts) and their walk: unit by unit, each
 * unit's rows in order, its furthest-reaching attempt counted as funnel.ts counts it.
 */
import type { FunnelOptions, FunnelResult } from "../sequence_types.ts";
import { funnelResult, Tally } from "./funnel.ts";
import { releaseViews } from "../rollup/let_go.ts";

/**
 * Rows matching a step, in growable typed arrays; `pos` breaks ties of the three order times (the order rows
 * were read in: part, then row in the part).
 */
export class StepRows {
  n = 0;
  pos: Float64Array;
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  unit: Int32Array;
  bits: Uint8Array;
  split: Int32Array;
  /**
   * `capacity`: room for that many rows from the start (a bound on what a read can keep costs only the pages
   * used, where growing copies the rows again)
   */
  constructor(capacity = 1024) {
    const c = Math.max(1024, capacity);
    this.pos = new Float64Array(c);
    this.t = new Float64Array(c);
    this.dt = new Float64Array(c);
    this.seq = new Float64Array(c);
    this.unit = new Int32Array(c);
    this.bits = new Uint8Array(c);
    this.split = new Int32Array(c);
  }
  /** Makes room for `extra` more rows (at least doubling, so pushes stay amortized). */
  reserve(extra: number) {
    if (this.n + extra <= this.t.length) return;
    const size = Math.max(this.n + extra, this.t.length * 2);
    const more = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => {
      const x = new (a.constructor as { new (n: number): T })(size);
      x.set(a.subarray(0, this.n));
      return x;
    };
    const was = this.arrays();
    this.pos = more(this.pos);
    this.t = more(this.t);
    this.dt = more(this.dt);
    this.seq = more(this.seq);
    this.unit = more(this.unit);
    this.bits = more(this.bits);
    this.split = more(this.split);
    releaseViews(was); // (outgrown: freed now, not at V8's next full collection)
  }
  private arrays() {
    return [this.pos, this.t, this.dt, this.seq, this.unit, this.bits, this.split];
  }
  /**
   * Frees the rows' arrays now (41 bytes a row: ~22 MB a cold funnel at 10M events, else left dead for V8's
   * next full collection); the rows are empty after.
   */
  free() {
    releaseViews(this.arrays());
    this.n = 0;
  }
  push(t: number, dt: number, seq: number, unit: number, bits: number, split: number, pos = this.n) {
    if (this.n === this.t.length) this.reserve(1);
    const k = this.n++;
    this.pos[k] = pos;
    this.t[k] = t;
    this.dt[k] = dt;
    this.seq[k] = seq;
    this.unit[k] = unit;
    this.bits[k] = bits;
    this.split[k] = split;
  }
}

/** The funnel of step rows: unit by unit (a counting sort by unit number), each unit's rows in order. */
export function walkStepRows(rows: StepRows, o: FunnelOptions, splitValues: (string | null)[]): FunnelResult {
  const total = new Tally(o.steps.length), groups = new Map<string | null, Tally>();
  tallyStepRows(rows, o, splitValues, total, groups);
  return funnelResult(o, total, groups);
}

/**
 * The units of step rows added to the tallies (all units, and per split value): rows of several reads, each
 * holding units none of the others holds, add up to the funnel of them all.
 */
export function tallyStepRows(
  rows: StepRows,
  o: FunnelOptions,
  splitValues: (string | null)[],
  total: Tally,
  groups: Map<string | null, Tally>,
) {
  let nUnits = 0;
  for (let k = 0; k < rows.n; k++) nUnits = Math.max(nUnits, rows.unit[k] + 1);
  const start = new Int32Array(nUnits + 1);
  for (let k = 0; k < rows.n; k++) start[rows.unit[k] + 1]++;
  for (let u = 0; u < nUnits; u++) start[u + 1] += start[u];
  const at = start.slice(0, nUnits), idx = new Int32Array(rows.n);
  for (let k = 0; k < rows.n; k++) idx[at[rows.unit[k]]++] = k;
  const { t, dt, seq, pos } = rows;
  const cmp = (a: number, b: number) => t[a] - t[b] || dt[a] - dt[b] || seq[a] - seq[b] || pos[a] - pos[b];
  const nSteps = o.steps.length;
  const cur = new Float64Array(nSteps), best = new Float64Array(nSteps);
  for (let u = 0; u < nUnits; u++) {
    const a = start[u], b = start[u + 1];
    if (a === b) continue;
    // a unit's rows are runs already in order (a part's section each): insertion sort for the usual few
    if (b - a > 32) idx.subarray(a, b).sort(cmp);
    else {
      for (let i = a + 1; i < b; i++) {
        const k = idx[i];
        let j = i - 1;
        while (j >= a && cmp(idx[j], k) > 0) {
          idx[j + 1] = idx[j];
          j--;
        }
        idx[j + 1] = k;
      }
    }
    const list = idx.subarray(a, b);
    // the furthest-reaching attempt, earliest start among equals (as funnel.ts walks)
    let reach = 0, first = -1;
    for (let x = 0; x < list.length && reach < nSteps; x++) {
      if (!(rows.bits[list[x]] & 1)) continue;
      const t0 = cur[0] = t[list[x]];
      let n = 1, cut = false;
      for (let y = x + 1; y < list.length && n < nSteps; y++) {
        const r = list[y], ty = t[r];
        if (o.window_ms !== undefined && ty - t0 > o.window_ms) {
          cut = true;
          break;
        }
        if (rows.bits[r] & (1 << n)) cur[n++] = ty;
      }
      if (n > reach) {
        reach = n;
        first = x;
        best.set(cur.subarray(0, n));
      }
      if (!cut) break;
    }
    if (reach === 0) continue;
    total.add(reach, best);
    if (!o.split) continue;
    const value = splitValues[rows.split[list[first]]];
    let g = groups.get(value);
    if (!g) groups.set(value, g = new Tally(nSteps));
    g.add(reach, best);
  }
  // the walk's order, made for it alone (4 bytes a row and 8 a unit)
  releaseViews([start, at, idx]);
}
