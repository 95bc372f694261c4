/**
 * Dropped events per session: gaps in `sequence_no` over all the session's stored rows in scope, whatever
 * batch they arrived in (ingest only sees gaps inside one batch, lib/enrich/sequence.ts). Rows are ordered
 * as sequence.ts orders them (device time, then number): a jump from n to m > n + 1 lost m - n - 1
 * events; a 0 or a lower number starts a new page load, a repeat is a resend. Human rows only.
 */
import { remember } from "../../lru.ts";
import { missingBetween } from "../../enrich/sequence.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx, Derived } from "./ctx.ts";
import { visitorOrder } from "./visitor_order.ts";

/** Dropped events of one session from its rows' device times and numbers, in any order. */
export function sessionGaps(dt: number[], seq: number[]): number {
  const n = dt.length;
  let sorted = true;
  for (let k = 1; k < n && sorted; k++) {
    sorted = dt[k - 1] < dt[k] || (dt[k - 1] === dt[k] && seq[k - 1] <= seq[k]);
  }
  // rows come in receive-time order, which nearly always is device-time order: sort only when not
  let order: number[] | null = null;
  if (!sorted) {
    order = Array.from({ length: n }, (_, k) => k);
    order.sort((a, b) => dt[a] - dt[b] || seq[a] - seq[b]);
  }
  let gaps = 0;
  for (let k = 1; k < n; k++) {
    const prev = order ? seq[order[k - 1]] : seq[k - 1], x = order ? seq[order[k]] : seq[k];
    gaps += missingBetween(prev, x);
  }
  return gaps;
}

/**
 * Adds the gaps of sessions to `out`: runs of batches below `below` only, and only sessions with `want`
 * set (all when null). A session split across batches is gathered until its visitor's runs are done.
 */
function addGaps(c: Ctx, out: Float64Array, below: number, want: Uint8Array | null) {
  const { rb, rk, split } = visitorOrder(c);
  const human = c.batches.map((e, b) => {
    const h = c.human[b], m = c.inScope[b], tr = eventView(e, "traffic").codes;
    return (i: number) => m[i] === 1 && h[tr[i]] === 1;
  });
  const pending = new Map<number, { dt: number[]; seq: number[] }>();
  const flush = () => {
    for (const [s, rows] of pending) out[s] = sessionGaps(rows.dt, rows.seq);
    pending.clear();
  };
  const own = { dt: [] as number[], seq: [] as number[] };
  let vis = -1;
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], k = rk[p], e = c.batches[b];
    if (e.runVis[k] !== vis) {
      flush();
      vis = e.runVis[k];
    }
    const s = e.runSes[k];
    if (b >= below || (want && !want[s]) || e.runHuman[k] === 0) continue;
    let rows = own;
    if (split[s]) {
      rows = pending.get(s) ?? { dt: [], seq: [] };
      pending.set(s, rows);
    } else own.dt.length = own.seq.length = 0;
    const ok = human[b], dt = e.dt, seq = e.seq;
    for (let i = e.runStart[k]; i < e.runStart[k + 1]; i++) {
      if (!ok(i)) continue;
      rows.dt.push(dt[i]);
      rows.seq.push(seq[i]);
    }
    if (!split[s]) out[s] = sessionGaps(own.dt, own.seq);
  }
  flush();
}

const kept = new WeakMap<Derived, Map<string, Float64Array>>();

/**
 * Per session number: its dropped events in scope. The parts' figures are kept per scope; with a raw
 * tail, the sessions the tail touches are counted again over all their rows.
 */
export function droppedBySession(c: Ctx): Float64Array {
  const parts = c.batches.length - (c.tail ? 1 : 0);
  let byScope = c.memo ? kept.get(c.memo) : undefined;
  if (c.memo && !byScope) kept.set(c.memo, byScope = new Map());
  let base = byScope?.get(c.scopeKey);
  if (!base) {
    base = new Float64Array(c.memo?.nSes ?? c.nSes);
    addGaps(c, base, parts, null);
    if (byScope) {
      remember(byScope, c.scopeKey, base, 4);
    }
  }
  if (!c.tail) return base;
  const out = new Float64Array(c.nSes);
  out.set(base.subarray(0, Math.min(base.length, c.nSes)));
  const touched = new Uint8Array(c.nSes);
  for (const s of c.batches[parts].runSes) touched[s] = 1;
  for (let s = 0; s < c.nSes; s++) if (touched[s]) out[s] = 0;
  addGaps(c, out, c.batches.length, touched);
  return out;
}
