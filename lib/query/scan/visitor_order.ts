/**
 * The visitor-major order of session runs: one visitor's runs are contiguous, so "last visitor counted in
 * this group" makes distinct counts exact without hash sets. The parts' order is kept; a raw tail is
 * merged in per question.
 */
import type { EvBatch } from "../columns/batch.ts";
import type { Ctx, VisitorOrder } from "./ctx.ts";

/**
 * A position for every visitor of the batches, in anonymous-id order: the order rows are sorted in inside
 * each batch, so walking visitors by position reads every batch front to back (memory-friendly on large
 * sites). A merge of the batches' visitor sequences; any order would be exact, this one is fast.
 */
export function visitorRank(batches: EvBatch[], nVis: number): Int32Array {
  const rank = new Int32Array(nVis).fill(-1);
  if (!batches.length) return rank;
  const interner = batches[0].interner;
  const cur = batches.map(() => 0);
  const heap: number[] = []; // batch numbers, ordered by their current visitor
  const at = (b: number) => batches[b].runVis[cur[b]];
  const less = (x: number, y: number) => interner.compareVisitors(at(x), at(y)) < 0;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l], heap[m])) m = l;
      if (r < heap.length && less(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  batches.forEach((e, b) => e.runVis.length && heap.push(b));
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  let next = 0;
  while (heap.length) {
    const b = heap[0], runVis = batches[b].runVis, v = runVis[cur[b]];
    if (rank[v] < 0) rank[v] = next++;
    while (cur[b] < runVis.length && runVis[cur[b]] === v) cur[b]++;
    if (cur[b] >= runVis.length) heap[0] = heap[heap.length - 1], heap.pop();
    down(0);
  }
  return rank;
}

/** Session runs ordered visitor by visitor (a counting sort: one visitor's runs are contiguous). */
function orderOf(batches: EvBatch[], nVis: number, nSes: number): VisitorOrder {
  let total = 0;
  for (const e of batches) total += e.runSes.length;
  const rank = visitorRank(batches, nVis);
  const count = new Int32Array(nVis + 1);
  const runs = new Uint8Array(nSes);
  for (const e of batches) {
    for (const v of e.runVis) count[rank[v] + 1]++;
    for (const s of e.runSes) if (runs[s] < 2) runs[s]++;
  }
  for (let v = 0; v < nVis; v++) count[v + 1] += count[v];
  const rb = new Int32Array(total), rk = new Int32Array(total);
  batches.forEach((e, b) => {
    const runVis = e.runVis;
    for (let k = 0; k < runVis.length; k++) {
      const p = count[rank[runVis[k]]]++;
      rb[p] = b;
      rk[p] = k;
    }
  });
  for (let s = 0; s < runs.length; s++) runs[s] = runs[s] > 1 ? 1 : 0;
  return { rb, rk, split: runs };
}

/** The visitor of every run of the parts' order (kept: the same array aggregate/per_run.ts keeps as "run:vis"). */
function partsVisitors(c: Ctx, base: VisitorOrder): Uint32Array {
  const kept = c.memo?.perRun.get("run:vis") as Uint32Array | undefined;
  if (kept && kept.length === base.rb.length) return kept;
  const out = new Uint32Array(base.rb.length);
  for (let q = 0; q < out.length; q++) out[q] = c.batches[base.rb[q]].runVis[base.rk[q]];
  c.memo?.perRun.set("run:vis", out);
  return out;
}

/**
 * The parts' order with the raw tail's runs merged in: each tail run right after its visitor's runs in
 * the parts (visitors new in the tail at the end), so every visitor's runs stay contiguous.
 */
function withTail(c: Ctx, base: VisitorOrder, parts: number, seen: Uint8Array): VisitorOrder {
  const tail = c.batches[parts], tv = tail.runVis;
  const firstRun = new Map<number, number>(); // visitor → its first tail run (a visitor's runs are adjacent)
  for (let k = tv.length - 1; k >= 0; k--) firstRun.set(tv[k], k);
  const total = base.rb.length + tv.length;
  const rb = new Int32Array(total), rk = new Int32Array(total), from = new Int32Array(total);
  let p = 0;
  const emitTail = (v: number) => {
    const k0 = firstRun.get(v);
    if (k0 === undefined) return;
    for (let k = k0; k < tv.length && tv[k] === v; k++, p++) {
      rb[p] = parts;
      rk[p] = k;
      from[p] = -k - 1;
    }
    firstRun.delete(v);
  };
  let prev = -1;
  const baseVis = partsVisitors(c, base);
  for (let q = 0; q < base.rb.length; q++) {
    const v = baseVis[q];
    if (v !== prev && prev >= 0) emitTail(prev);
    prev = v;
    rb[p] = base.rb[q];
    rk[p] = base.rk[q];
    from[p] = q;
    p++;
  }
  if (prev >= 0) emitTail(prev);
  for (let k = 0; k < tv.length; k++) if (firstRun.has(tv[k])) emitTail(tv[k]);
  const split = new Uint8Array(c.nSes);
  split.set(base.split.subarray(0, Math.min(c.nSes, base.split.length)));
  for (const s of tail.runSes) if (s < seen.length && seen[s]) split[s] = 1;
  return { rb, rk, split, from };
}

/** Session runs ordered visitor by visitor; the parts' order is kept, a raw tail merged in per question. */
export function visitorOrder(c: Ctx): VisitorOrder {
  if (c.order) return c.order;
  const parts = c.batches.length - (c.tail ? 1 : 0);
  let base = c.memo?.order;
  if (!base) {
    base = orderOf(c.batches.slice(0, parts), c.nVis, c.nSes);
    if (c.memo) c.memo.order = base;
  }
  if (!c.tail) return c.order = base;
  let seen = c.memo?.sessions;
  if (!seen) {
    seen = new Uint8Array(c.nSes);
    for (let b = 0; b < parts; b++) for (const s of c.batches[b].runSes) seen[s] = 1;
    if (c.memo) c.memo.sessions = seen;
  }
  return c.order = withTail(c, base, parts, seen);
}
