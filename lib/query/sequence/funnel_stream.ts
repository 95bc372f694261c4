/**
 * Funnels without holding the period: when its parts would not fit the scan's budget, they are read one at
 * a time and only the rows matching a step are kept, as numbers (unit, order, step bits, split value: 33
 * bytes a row). They are then ordered unit by unit (a counting sort by unit number, each unit's rows by
 * receive time, device time, number) and walked as `funnel` walks them. The same answer as the scan over all
 * batches (tests/lib/query/funnel_stream_test.ts).
 */
import { eventView } from "../columns/views.ts";
import type { ScanContexts } from "../scan/contexts.ts";
import { makeCtx } from "../scan/ctx.ts";
import type { FunnelOptions, FunnelResult } from "../sequence_types.ts";
import type { Scope } from "../types.ts";
import { funnel, funnelResult, Tally } from "./funnel.ts";
import { stepBits } from "./steps.ts";

/** A funnel streamed when the period's parts would not fit the budget, else by the scan. */
export async function scanFunnel(scans: ScanContexts, s: Scope, o: FunnelOptions): Promise<FunnelResult> {
  if (!(await scans.streams(s, o.steps.flatMap((st) => st.filters ?? [])))) {
    return funnel(await scans.of(s), o);
  }
  return streamFunnel(scans, s, o);
}

/** Rows matching a step, in growable typed arrays. */
class StepRows {
  n = 0;
  t = new Float64Array(1024);
  dt = new Float64Array(1024);
  seq = new Float64Array(1024);
  unit = new Int32Array(1024);
  bits = new Uint8Array(1024);
  split = new Int32Array(1024);
  push(t: number, dt: number, seq: number, unit: number, bits: number, split: number) {
    if (this.n === this.t.length) {
      const more = <T extends Float64Array | Int32Array | Uint8Array>(a: T): T => {
        const x = new (a.constructor as { new (n: number): T })(a.length * 2);
        x.set(a);
        return x;
      };
      this.t = more(this.t);
      this.dt = more(this.dt);
      this.seq = more(this.seq);
      this.unit = more(this.unit);
      this.bits = more(this.bits);
      this.split = more(this.split);
    }
    const k = this.n++;
    this.t[k] = t;
    this.dt[k] = dt;
    this.seq[k] = seq;
    this.unit[k] = unit;
    this.bits[k] = bits;
    this.split[k] = split;
  }
}

export async function streamFunnel(scans: ScanContexts, s: Scope, o: FunnelOptions): Promise<FunnelResult> {
  const source = scans.source, interner = source.interner(s.org, s.env);
  const byVisitor = o.by !== "session";
  let rows = new StepRows(), splitIds = new Map<string | null, number>(), splitValues: (string | null)[] = [];
  await source.stream(s.org, s.env, s.from, s.to, {
    begin: () => {
      rows = new StepRows();
      splitIds = new Map();
      splitValues = [];
    },
    visit: (e) => {
      const c = makeCtx([e], s, interner.visitorCount, interner.sessionCount);
      const bits = stepBits(c, o.steps)[0], human = c.human[0], tr = eventView(e, "traffic").codes;
      const sv = o.split ? eventView(e, o.split.field) : null;
      const splitOf = sv
        ? Int32Array.from(sv.values, (v) => {
          let id = splitIds.get(v);
          if (id === undefined) {
            splitIds.set(v, id = splitValues.length);
            splitValues.push(v);
          }
          return id;
        })
        : null;
      const units = byVisitor ? e.vis : e.ses, t = e.t;
      let dt: Float64Array | null = null, seq: Float64Array | null = null;
      for (let i = 0; i < e.n; i++) {
        if (!bits[i] || (byVisitor && !human[tr[i]])) continue;
        dt ??= e.dt;
        seq ??= e.seq;
        const split = splitOf ? splitOf[sv!.codes.length ? sv!.codes[i] : 0] : 0;
        rows.push(t[i], dt[i], seq[i], units[i], bits[i], split);
      }
    },
  });
  // unit by unit: a counting sort by unit number, then each unit's rows in order
  let nUnits = 0;
  for (let k = 0; k < rows.n; k++) nUnits = Math.max(nUnits, rows.unit[k] + 1);
  const start = new Int32Array(nUnits + 1);
  for (let k = 0; k < rows.n; k++) start[rows.unit[k] + 1]++;
  for (let u = 0; u < nUnits; u++) start[u + 1] += start[u];
  const at = start.slice(0, nUnits), idx = new Int32Array(rows.n);
  for (let k = 0; k < rows.n; k++) idx[at[rows.unit[k]]++] = k;
  const { t, dt, seq } = rows;
  const cmp = (a: number, b: number) => t[a] - t[b] || dt[a] - dt[b] || seq[a] - seq[b] || a - b;
  const nSteps = o.steps.length;
  const total = new Tally(nSteps), groups = new Map<string | null, Tally>();
  const cur = new Float64Array(nSteps), best = new Float64Array(nSteps);
  for (let u = 0; u < nUnits; u++) {
    const a = start[u], b = start[u + 1];
    if (a === b) continue;
    const list = b - a > 1 ? idx.subarray(a, b).sort(cmp) : idx.subarray(a, b);
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
  return funnelResult(o, total, groups);
}
