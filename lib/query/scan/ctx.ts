/**
 * One question's view of its batches: which rows are in scope (time range, touchpoint, traffic), and the
 * shapes of what questions over the same parts share (visitor order, session facts), kept in `Derived`.
 */
import { remember } from "../../lru.ts";
import { type EvBatch, HUMAN } from "../columns/batch.ts";
import { eventView, type View } from "../columns/views.ts";
import type { Scope } from "../types.ts";

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
  /**
   * what the rows in scope of the parts depend on (time range, touchpoint, traffic, cohort): masks, session
   * facts and run states are kept per scope key. The time range is cut to the parts' rows (`keyWindow`), so
   * a question ending at a later "now" with no newer part shares them; a bucketed breakdown also keys on the
   * uncut range (its buckets are the period's). The raw tail is a new batch each question: never reused.
   */
  scopeKey: string;
}

/** A cohort's members by visitor number; visitors numbered after the evaluation get `dflt` (cohort/evaluate.ts). */
export interface Membership {
  /** unique per evaluation: masks and session facts built with it are kept under this number */
  id: number;
  bits: Uint8Array;
  dflt: 0 | 1;
  /** a part of the definition changes the members by 1 to 4 visitors (cohort/evaluate.ts): not to be asked */
  tellsFew?: true;
}

/** What questions over one set of batches can share: the visitor order, session facts per scope. */
export interface Derived {
  nVis: number;
  nSes: number;
  order?: VisitorOrder;
  facts: Map<string, SessionFacts>;
  /** row groups of bucketed / several-field breakdowns (aggregate/groups.ts), by question */
  groups: Map<string, unknown>;
  /** per-run arrays in visitor order (aggregate/per_run.ts: run figures, states per scope, field values), by name */
  perRun: Map<string, Int32Array | Uint32Array | Uint8Array>;
  /** dropped events per session number, per scope (scan/drops.ts) */
  dropped: Map<string, Float64Array>;
  /** sessions with a run in these batches (a raw-tail session also here is split) */
  sessions?: Uint8Array;
}

/** The bytes a derived set holds (its typed arrays), for the budget it is kept in. */
export function derivedBytes(d: Derived): number {
  let n = d.sessions?.byteLength ?? 0;
  if (d.order) n += d.order.rb.byteLength + d.order.rk.byteLength + d.order.split.byteLength;
  for (const f of d.facts.values()) for (const a of Object.values(f)) n += (a as Uint8Array).byteLength;
  for (const a of d.perRun.values()) n += a.byteLength;
  for (const a of d.dropped.values()) n += a.byteLength;
  for (const g of d.groups.values()) {
    const { gids, runGids } = g as { gids?: Int32Array[]; runGids?: Int32Array };
    for (const a of gids ?? []) n += a.byteLength;
    n += runGids?.byteLength ?? 0;
  }
  return n;
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

export interface VisitorOrder {
  /** session runs, visitor by visitor: run p is run rk[p] of batch rb[p] */
  rb: Int32Array;
  rk: Int32Array;
  /** sessions with runs in more than one batch (their rows are not contiguous in this order) */
  split: Uint8Array;
  /** with a raw tail merged in: run p is run from[p] of the parts' order, or tail run -from[p] - 1 */
  from?: Int32Array;
}

/** A mask over a view's codes: 1 where the value is kept. */
export function codeMask(v: View, keep: (s: string | null) => boolean): Uint8Array {
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

/** Keeps only rows of the cohort's visitors (a cohort holds visitors: human rows only). */
function cohortMask(e: EvBatch, m: Uint8Array, c: Membership): Uint8Array {
  const out = new Uint8Array(e.n), vis = e.vis, bits = c.bits, n = bits.length;
  for (let i = 0; i < e.n; i++) {
    if (!m[i] || !(e.bits[i] & HUMAN)) continue;
    const v = vis[i];
    out[i] = v < n ? bits[v] : c.dflt;
  }
  return out;
}

/**
 * The scope's time range as far as rows of the parts go: those of the parts lie in [span.min, span.max], so
 * a range cut to that selects the same rows of them ("" when it selects none); uncut without a span.
 */
export function keyWindow(from: number, to: number, span: { min: number; max: number } | null): string {
  if (!span) return `${from}|${to}`;
  const a = Math.max(from, span.min), b = Math.min(to, span.max + 1);
  return a < b ? `${a}|${b}` : "none";
}

/** Each part's own time range [min, max], found once per decoded part (its time column does not change). */
const ownSpans = new WeakMap<Float64Array, { min: number; max: number }>();
function ownSpan(t: Float64Array): { min: number; max: number } {
  let s = ownSpans.get(t);
  if (!s) {
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < t.length; i++) {
      if (t[i] < min) min = t[i];
      if (t[i] > max) max = t[i];
    }
    ownSpans.set(t, s = { min, max });
  }
  return s;
}

/**
 * The time range [min, max] of the parts' rows inside [from, to), for keys of what depends only on those rows
 * (`keyWindow`; { min: Infinity, max: -Infinity }: none inside). Two windows that select the same rows get the
 * same range, so a question at a later "now" whose window moved past no row shares what was kept: cut to the
 * parts' whole range instead, a window starting inside it (the previous period's end, the period's start as
 * "now" moves) changed its key every second, and each such question under a cohort evaluated the cohort
 * again and kept new session facts (~10 MB an ask at 1M events). Only parts straddling an end are looked at.
 */
export function rowsSpan(parts: EvBatch[], from: number, to: number): { min: number; max: number } {
  let min = Infinity, max = -Infinity;
  for (const e of parts) {
    const own = ownSpan(e.t);
    if (own.max < from || own.min >= to) continue;
    if (own.min >= from && own.max < to) {
      if (own.min < min) min = own.min;
      if (own.max > max) max = own.max;
      continue;
    }
    const t = e.t;
    for (let i = 0; i < t.length; i++) {
      const x = t[i];
      if (x < from || x >= to) continue;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  return { min, max };
}

/**
 * `span`: the time range of the parts' rows inside the scope's range (`rowsSpan`), for the scope key; null:
 * none read.
 */
export function makeCtx(
  batches: EvBatch[],
  scope: Scope,
  nVis: number,
  nSes: number,
  cohort?: Membership,
  span: { min: number; max: number } | null = null,
): Ctx {
  const traffic = new Set<string | null>(scope.traffic ?? ["human"]);
  const inScope: Uint8Array[] = [], etBits: Uint8Array[] = [], human: Uint8Array[] = [];
  const scopeKey = `${keyWindow(scope.from, scope.to, span)}|${scope.touchpoint ?? ""}|` +
    `${[...traffic].join(",")}` + (cohort ? `|cohort${cohort.id}` : "");
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
      if (cohort) m = cohortMask(e, m, cohort);
      remember(e.scopeMasks, scopeKey, m, 8);
    }
    inScope.push(m);
  }
  return { batches, scope, nVis, nSes, inScope, etBits, human, scopeKey };
}
