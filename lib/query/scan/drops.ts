/**
 * Dropped events per session: gaps in `sequence_no` over all the session's stored rows in scope, whatever
 * batch they arrived in (ingest only sees gaps inside one batch, lib/enrich/sequence.ts). Rows are ordered
 * as sequence.ts orders them (device time, then number) and read by its one rule (`RunGaps`): a jump from
 * n to m > n + 1 lost m - n - 1 events, unless m continues another page load of the session (two tabs);
 * a 0 or a lower number starts a new page load, a repeat is a resend. Human rows only.
 */
import { remember } from "../../lru.ts";
import { RunGaps } from "../../enrich/sequence.ts";
import { eventView } from "../columns/views.ts";
import type { Ctx } from "./ctx.ts";
import { visitorOrder } from "./visitor_order.ts";

/** One follower of page-load runs for every walk (walks are synchronous). */
const walk = new RunGaps();

/** Row a comes no later than row b in (device time, number) order. */
const inOrder = (dtA: number, seqA: number, dtB: number, seqB: number) =>
  dtA < dtB || (dtA === dtB && seqA <= seqB);

/** Dropped events of one session from its rows' device times and numbers, in any order. */
export function sessionGaps(dt: number[], seq: number[]): number {
  const n = dt.length;
  let sorted = true;
  for (let k = 1; k < n && sorted; k++) {
    sorted = inOrder(dt[k - 1], seq[k - 1], dt[k], seq[k]);
  }
  // rows come in stored order, which nearly always is device-time order: sort only when not
  let order: number[] | null = null;
  if (!sorted) {
    order = Array.from({ length: n }, (_, k) => k);
    order.sort((a, b) => dt[a] - dt[b] || seq[a] - seq[b]);
  }
  const runs = walk.reset();
  let gaps = 0;
  for (let k = 0; k < n; k++) gaps += runs.add(order ? seq[order[k]] : seq[k]);
  return gaps;
}

/**
 * Adds the gaps of sessions to `out`: runs of batches below `below` only, and only sessions with `want`
 * set (all when null). A session split across batches is gathered until its visitor's runs are done.
 */
function addGaps(c: Ctx, out: Float64Array, below: number, want: Uint8Array | null) {
  const { rb, rk, split } = visitorOrder(c);
  const trCodes = c.batches.map((e) => eventView(e, "traffic").codes);
  const pending = new Map<number, { dt: number[]; seq: number[] }>();
  const flush = () => {
    for (const [s, rows] of pending) out[s] = sessionGaps(rows.dt, rows.seq);
    pending.clear();
  };
  let vis = -1;
  for (let p = 0; p < rb.length; p++) {
    const b = rb[p], k = rk[p], e = c.batches[b];
    if (e.runVis[k] !== vis) {
      flush();
      vis = e.runVis[k];
    }
    const s = e.runSes[k];
    if (b >= below || (want && !want[s]) || e.runHuman[k] === 0) continue;
    const h = c.human[b], m = c.inScope[b], tr = trCodes[b], dt = e.dt, seq = e.seq;
    const start = e.runStart[k], end = e.runStart[k + 1];
    if (!split[s]) {
      // the common case: a run in device-time order counts its gaps as it goes, without gathering rows
      const gaps = gapsInOrder(m, h, tr, dt, seq, start, end);
      if (gaps >= 0) {
        out[s] = gaps;
        continue;
      }
    }
    const rows = split[s] ? (pending.get(s) ?? { dt: [], seq: [] }) : { dt: [], seq: [] };
    if (split[s]) pending.set(s, rows);
    for (let i = start; i < end; i++) {
      if (m[i] !== 1 || h[tr[i]] !== 1) continue;
      rows.dt.push(dt[i]);
      rows.seq.push(seq[i]);
    }
    if (!split[s]) out[s] = sessionGaps(rows.dt, rows.seq);
  }
  flush();
}

/** Gaps of a run's human rows in scope when they are in (device time, number) order; -1 when not. */
function gapsInOrder(
  m: Uint8Array,
  h: Uint8Array,
  tr: ArrayLike<number>,
  dt: Float64Array,
  seq: Float64Array,
  start: number,
  end: number,
): number {
  const runs = walk.reset();
  let gaps = 0, prevDt = -Infinity, prevSeq = 0, first = true;
  for (let i = start; i < end; i++) {
    if (m[i] !== 1 || h[tr[i]] !== 1) continue;
    const t = dt[i], n = seq[i];
    if (!first && !inOrder(prevDt, prevSeq, t, n)) return -1;
    gaps += runs.add(n);
    first = false;
    prevDt = t;
    prevSeq = n;
  }
  return gaps;
}

/**
 * Per session number: its dropped events in scope. The parts' figures are kept per scope; with a raw
 * tail, the sessions the tail touches are counted again over all their rows.
 */
export function droppedBySession(c: Ctx): Float64Array {
  const parts = c.batches.length - (c.tail ? 1 : 0);
  const byScope = c.memo?.dropped;
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
