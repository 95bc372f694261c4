/**
 * Shared passes over prepared batches: which rows are in scope, per-session facts (pageviews, first and
 * last time, entry and exit pageview), compiled filters, and the visitor-major order of session runs
 * that lets distinct counts be exact without hash sets.
 */
import { PASSIVE_EVENTS } from "./engaged.ts";
import { matches } from "./naive.ts";
import { type EvBatch, eventView, type View } from "./prepared.ts";
import type { Filter, Scope } from "./types.ts";

export interface Ctx {
  batches: EvBatch[];
  scope: Scope;
  nVis: number;
  nSes: number;
  inScope: Uint8Array[];
  /** event type bits per batch and code: 1 pageview, 2 pageleave, 4 autocapture */
  etBits: Uint8Array[];
  human: Uint8Array[]; // per batch and traffic code
  sess?: SessionFacts;
  order?: VisitorOrder;
  /**
   * derived data kept across questions over the same parts (see engine.ts); with `tail`, the last batch is
   * the raw tail (new each question): the memo covers the batches before it and the tail is merged in
   */
  memo?: Derived;
  tail?: boolean;
  /** what the rows in scope depend on (time range, touchpoint, traffic): session facts are per scope key */
  scopeKey: string;
}

/** What questions over one set of batches can share: the visitor order, session facts per scope. */
export interface Derived {
  batches: EvBatch[];
  nVis: number;
  nSes: number;
  order?: VisitorOrder;
  facts: Map<string, SessionFacts>;
  /** row groups of bucketed / several-field breakdowns (agg.ts), by question */
  groups: Map<string, unknown>;
  /** per-run arrays in visitor order (agg.ts: run figures, states per scope, field values), by name */
  perRun: Map<string, Int32Array | Uint32Array | Uint8Array>;
  /** sessions with a run in these batches (a raw-tail session also here is split) */
  sessions?: Uint8Array;
}

export interface RunColumns {
  vis: Uint32Array;
  ses: Uint32Array;
  rows: Uint32Array;
  pv: Uint32Array;
  human: Uint32Array;
}

export interface SessionFacts {
  pv: Int32Array;
  first: Float64Array;
  last: Float64Array;
  entryB: Int32Array;
  entryR: Int32Array;
  exitB: Int32Array;
  exitR: Int32Array;
  /** 1: the session had an interaction in scope (an event that is not passive, see engaged.ts) */
  act: Uint8Array;
}

function codeMask(v: View, keep: (s: string | null) => boolean): Uint8Array {
  return Uint8Array.from(v.values, (s) => (keep(s) ? 1 : 0));
}

function scopeMask(
  t: Float64Array,
  from: number,
  to: number,
  tp: ArrayLike<number>,
  tpOk: Uint8Array,
  tr: ArrayLike<number>,
  trOk: Uint8Array,
): Uint8Array {
  const m = new Uint8Array(t.length);
  for (let i = 0; i < t.length; i++) m[i] = t[i] >= from && t[i] < to && tpOk[tp[i]] && trOk[tr[i]] ? 1 : 0;
  return m;
}

export function makeCtx(batches: EvBatch[], scope: Scope, nVis: number, nSes: number): Ctx {
  const traffic = new Set<string | null>(scope.traffic ?? ["human"]);
  const inScope: Uint8Array[] = [], etBits: Uint8Array[] = [], human: Uint8Array[] = [];
  const scopeKey = `${scope.from}|${scope.to}|${scope.touchpoint ?? ""}|${[...traffic].join(",")}`;
  for (const e of batches) {
    const tp = eventView(e, "touchpoint"), tr = eventView(e, "traffic"), et = eventView(e, "event_type");
    human.push(codeMask(tr, (s) => s === "human"));
    etBits.push(
      Uint8Array.from(
        et.values,
        (s) => (s === "$pageview" ? 1 : s === "$pageleave" ? 2 : s === "$autocapture" ? 4 : 0),
      ),
    );
    let m = e.scopeMasks.get(scopeKey);
    if (!m) {
      const tpOk = codeMask(tp, (s) => !scope.touchpoint || s === scope.touchpoint);
      const trOk = codeMask(tr, (s) => traffic.has(s));
      m = scopeMask(e.t, scope.from, scope.to, tp.codes, tpOk, tr.codes, trOk);
      if (e.scopeMasks.size >= 8) e.scopeMasks.delete(e.scopeMasks.keys().next().value!);
      e.scopeMasks.set(scopeKey, m);
    }
    inScope.push(m);
  }
  return { batches, scope, nVis, nSes, inScope, etBits, human, scopeKey };
}

const before = (a: EvBatch, i: number, b: EvBatch, j: number) =>
  a.t[i] < b.t[j] ||
  (a.t[i] === b.t[j] && (a.dt[i] < b.dt[j] || (a.dt[i] === b.dt[j] && a.seq[i] < b.seq[j])));

function emptyFacts(n: number): SessionFacts {
  return {
    pv: new Int32Array(n),
    first: new Float64Array(n).fill(Infinity),
    last: new Float64Array(n).fill(-Infinity),
    entryB: new Int32Array(n).fill(-1),
    entryR: new Int32Array(n),
    exitB: new Int32Array(n).fill(-1),
    exitR: new Int32Array(n),
    act: new Uint8Array(n),
  };
}

/** The facts grown to n sessions (the raw tail may bring new ones), as a copy. */
function grownFacts(f: SessionFacts, n: number): SessionFacts {
  const g = emptyFacts(n);
  for (const k of Object.keys(g) as (keyof SessionFacts)[]) {
    (g[k] as Int32Array).set((f[k] as Int32Array).subarray(0, Math.min(n, f[k].length)));
  }
  return g;
}

/** Adds the in-scope rows of batch b to the session facts. */
function addFacts(f: SessionFacts, c: Ctx, b: number) {
  const e = c.batches[b];
  const m = c.inScope[b], bits = c.etBits[b], ev = eventView(e, "event_type"), et = ev.codes;
  const active = Uint8Array.from(ev.values, (v) => (v !== null && !PASSIVE_EVENTS.has(v) ? 1 : 0));
  for (let i = 0; i < e.n; i++) {
    if (!m[i]) continue;
    const s = e.ses[i], t = e.t[i];
    if (active[et[i]]) f.act[s] = 1;
    if (t < f.first[s]) f.first[s] = t;
    if (t > f.last[s]) f.last[s] = t;
    if (bits[et[i]] & 1) {
      f.pv[s]++;
      if (f.entryB[s] < 0 || before(e, i, c.batches[f.entryB[s]], f.entryR[s])) {
        f.entryB[s] = b;
        f.entryR[s] = i;
      }
      if (f.exitB[s] < 0 || !before(e, i, c.batches[f.exitB[s]], f.exitR[s])) {
        f.exitB[s] = b;
        f.exitR[s] = i;
      }
    }
  }
}

/** Per-session facts of the scope: those of the parts are kept, the raw tail's rows are added to a copy. */
export function sessionFacts(c: Ctx): SessionFacts {
  if (c.sess) return c.sess;
  const parts = c.batches.length - (c.tail ? 1 : 0);
  let f = c.memo?.facts.get(c.scopeKey);
  if (!f) {
    f = emptyFacts(c.nSes);
    for (let b = 0; b < parts; b++) addFacts(f, c, b);
    if (c.memo) {
      c.memo.facts.set(c.scopeKey, f);
      if (c.memo.facts.size > 4) c.memo.facts.delete(c.memo.facts.keys().next().value!);
    }
  }
  if (c.tail) {
    f = grownFacts(f, c.nSes);
    addFacts(f, c, parts);
  }
  return c.sess = f;
}

/** The page of a session's entry or exit pageview, or null. */
export function sessionPage(c: Ctx, s: number, which: "entry_page" | "exit_page"): string | null {
  const f = sessionFacts(c);
  const b = which === "entry_page" ? f.entryB[s] : f.exitB[s];
  if (b < 0) return null;
  const r = which === "entry_page" ? f.entryR[s] : f.exitR[s];
  const v = eventView(c.batches[b], "page");
  return v.values[v.codes[r]];
}

/** A row predicate for a batch: all filters hold. */
export function compileFilters(
  c: Ctx,
  b: number,
  filters: Filter[] | undefined,
): ((i: number) => boolean) | null {
  if (!filters?.length) return null;
  const e = c.batches[b];
  const tests = filters.map((f): (i: number) => boolean => {
    if (f.field === "entry_page" || f.field === "exit_page") {
      const memo = new Map<number, boolean>();
      return (i) => {
        const s = e.ses[i];
        let ok = memo.get(s);
        if (ok === undefined) memo.set(s, ok = matches(sessionPage(c, s, f.field as "entry_page"), f));
        return ok;
      };
    }
    const v = eventView(e, f.field);
    if (!v.codes.length) {
      const ok = matches(null, f);
      return () => ok;
    }
    const mask = codeMask(v, (s) => matches(s, f));
    const codes = v.codes;
    return (i) => mask[codes[i]] === 1;
  });
  return tests.length === 1 ? tests[0] : (i) => tests.every((t) => t(i));
}

/** Rows in scope that pass the filters, per batch (kept with the batch: a tool asks several questions). */
export function matchMasks(c: Ctx, filters: Filter[] | undefined): Uint8Array[] {
  // entry/exit pages depend on every batch of the question (a session's rows may span them): not kept
  const sessionLevel = filters?.some((f) => f.field === "entry_page" || f.field === "exit_page");
  const key = filters?.length ? `${c.scopeKey}#${JSON.stringify(filters)}` : "";
  return c.batches.map((e, b) => {
    if (!key) return c.inScope[b];
    const kept = sessionLevel ? undefined : e.scopeMasks.get(key);
    if (kept) return kept;
    const pred = compileFilters(c, b, filters)!;
    const m = new Uint8Array(e.n), s = c.inScope[b];
    for (let i = 0; i < e.n; i++) m[i] = s[i] && pred(i) ? 1 : 0;
    if (sessionLevel) return m;
    if (e.scopeMasks.size >= 8) e.scopeMasks.delete(e.scopeMasks.keys().next().value!);
    e.scopeMasks.set(key, m);
    return m;
  });
}

export interface VisitorOrder {
  /** session runs, visitor by visitor: run p is run rk[p] of batch rb[p] */
  rb: Int32Array;
  rk: Int32Array;
  /** sessions with runs in more than one batch (their rows are not contiguous in this order) */
  split: Uint8Array;
  /** with a raw tail merged in: run p is run from[p] of the parts' order, or tail run -from[p] - 1 */
  from?: Int32Array;
}

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

/** The visitor of every run of the parts' order (kept: the same array agg.ts keeps as "run:vis"). */
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
