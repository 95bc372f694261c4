/**
 * A cohort's members, exactly: every condition of the definition is evaluated over the stored events of its
 * window (parts plus raw tail, as questions read them) into one bit per visitor number, then combined. The
 * result is a `Membership` a question's scan masks rows with (scan/ctx.ts). Only human events count; a
 * visitor is a member or not as a whole, so per-run sums of the aggregate loops stay exact.
 *
 * In two steps, so the costly one can be kept (cache.ts): `evaluateParts` reads the parts (per condition,
 * each visitor's count of matching rows, or its first row and whether that matches); `membershipOf` adds
 * the raw tail to a copy of that, which changes with every new event but is small, and combines.
 */
import type { EvBatch } from "../columns/batch.ts";
import type { Membership } from "../scan/ctx.ts";
import type { CohortExpr } from "../types.ts";
import {
  addCounts,
  addFirsts,
  baseMask,
  type CohortWhere,
  firstMatches,
  type Firsts,
  type FirstTimes,
  isEarlier,
  newFirsts,
} from "./conditions.ts";

export type { CohortWhere, Membership };

let nextId = 1;

type Leaf = Extract<CohortExpr, { did: unknown } | { first: unknown }>;
type Window = { from: number; to: number };

/** The conditions of a definition, in a fixed order (the same for every definition of the same shape). */
function leaves(x: CohortExpr, out: Leaf[] = []): Leaf[] {
  if ("all" in x) x.all.forEach((y) => leaves(y, out));
  else if ("any" in x) x.any.forEach((y) => leaves(y, out));
  else if ("not" in x) leaves(x.not, out);
  else out.push(x);
  return out;
}

const windowOf = (l: Leaf): Window => ("did" in l ? l.did : l.first);
const windowKey = (w: Window) => `${w.from}|${w.to}`;

/** The distinct windows a definition's conditions read, in order of first use. */
export function cohortWindows(expr: CohortExpr): Window[] {
  const seen = new Map<string, Window>();
  for (const l of leaves(expr)) {
    const w = windowOf(l);
    if (!seen.has(windowKey(w))) seen.set(windowKey(w), { from: w.from, to: w.to });
  }
  return [...seen.values()];
}

/** The same definition with each condition's window replaced (windows as `cohortWindows` lists them). */
export function withWindows(expr: CohortExpr, replace: (w: Window) => Window): CohortExpr {
  if ("all" in expr) return { all: expr.all.map((x) => withWindows(x, replace)) };
  if ("any" in expr) return { any: expr.any.map((x) => withWindows(x, replace)) };
  if ("not" in expr) return { not: withWindows(expr.not, replace) };
  if ("did" in expr) return { did: { ...expr.did, ...replace(expr.did) } };
  return { first: { ...expr.first, ...replace(expr.first) } };
}

/** What the parts give one condition: counts of matching rows, or first rows and whether they match. */
type LeafState = { counts: Uint32Array } | { firsts: FirstTimes; bits: Uint8Array };

export interface PartsState {
  leaves: LeafState[];
  /** memory held, for the cache's bound */
  bytes: number;
}

/** Reads the parts of each window (`parts[k]`: the parts of `cohortWindows(expr)[k]`) for every condition. */
export function evaluateParts(
  expr: CohortExpr,
  where: CohortWhere,
  parts: EvBatch[][],
  n: number,
): PartsState {
  const windows = cohortWindows(expr).map(windowKey);
  const masks = new Map<number, Uint8Array[]>();
  const firsts = new Map<number, Firsts>();
  let bytes = 0;
  const state = leaves(expr).map((l): LeafState => {
    const w = windowOf(l), k = windows.indexOf(windowKey(w)), batches = parts[k];
    let m = masks.get(k);
    if (!m) masks.set(k, m = batches.map((e) => baseMask(e, where, w.from, w.to)));
    if ("did" in l) {
      const counts = new Uint32Array(n);
      batches.forEach((e, b) => addCounts(counts, e, m[b], l.did.filters));
      bytes += counts.byteLength;
      return { counts };
    }
    let f = firsts.get(k);
    if (!f) {
      firsts.set(k, f = newFirsts(n));
      batches.forEach((e, b) => addFirsts(f!, e, b, m[b]));
      bytes += 28 * n;
    }
    const bits = firstMatches(f, batches, l.first.filter);
    bytes += n;
    return { firsts: { t: f.t, dt: f.dt, seq: f.seq, b: f.b }, bits };
  });
  return { leaves: state, bytes };
}

function grown<T extends Uint8Array | Uint32Array>(a: T, n: number): T {
  if (a.length >= n) return a.slice() as T;
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
}

/**
 * The members: the parts' state with each window's raw tail (`tails[k]`, or null) added, combined. `n`:
 * visitors numbered now; a visitor numbered later has no events in these windows and gets `dflt`.
 */
export function membershipOf(
  expr: CohortExpr,
  where: CohortWhere,
  state: PartsState,
  tails: (EvBatch | null)[],
  n: number,
): Membership {
  const windows = cohortWindows(expr).map(windowKey);
  const tailFirsts = new Map<number, Firsts>();
  const all = leaves(expr);
  const leafBits = all.map((l, x): Uint8Array => {
    const w = windowOf(l), k = windows.indexOf(windowKey(w)), tail = tails[k], s = state.leaves[x];
    const m = tail ? baseMask(tail, where, w.from, w.to) : null;
    if ("did" in l && "counts" in s) {
      const counts = grown(s.counts, n);
      if (tail) addCounts(counts, tail, m!, l.did.filters);
      const min = Math.max(1, l.did.min ?? 1), bits = new Uint8Array(n);
      for (let v = 0; v < n; v++) bits[v] = counts[v] >= min ? 1 : 0;
      return bits;
    }
    if (!("first" in l) || !("bits" in s)) throw new Error("cohort state does not fit its definition");
    const bits = grown(s.bits, n);
    if (!tail) return bits;
    let tf = tailFirsts.get(k);
    if (!tf) {
      tailFirsts.set(k, tf = newFirsts(n));
      addFirsts(tf, tail, 0, m!);
    }
    const tailBits = firstMatches(tf, [tail], l.first.filter);
    const known = s.bits.length;
    for (let v = 0; v < n; v++) {
      // the tail's first row counts when the parts have none for this visitor or it comes strictly first
      if (tf.b[v] >= 0 && (v >= known || isEarlier(s.firsts, v, tf.t[v], tf.dt[v], tf.seq[v]))) {
        bits[v] = tailBits[v];
      }
    }
    return bits;
  });
  const bitsOf = new Map(all.map((l, x) => [l, leafBits[x]]));
  const { bits, dflt } = combine(expr, bitsOf, n);
  return { id: nextId++, bits, dflt };
}

function combine(
  x: CohortExpr,
  leafBits: Map<Leaf, Uint8Array>,
  n: number,
): { bits: Uint8Array; dflt: 0 | 1 } {
  if ("did" in x || "first" in x) return { bits: leafBits.get(x)!, dflt: 0 };
  if ("not" in x) {
    const inner = combine(x.not, leafBits, n);
    const bits = new Uint8Array(n);
    for (let v = 0; v < n; v++) bits[v] = inner.bits[v] ^ 1;
    return { bits, dflt: inner.dflt ? 0 : 1 };
  }
  const and = "all" in x;
  const parts = (and ? x.all : x.any).map((y) => combine(y, leafBits, n));
  const bits = new Uint8Array(n).fill(and ? 1 : 0);
  let dflt: 0 | 1 = and ? 1 : 0;
  for (const p of parts) {
    for (let v = 0; v < n; v++) bits[v] = and ? bits[v] & p.bits[v] : bits[v] | p.bits[v];
    dflt = (and ? dflt & p.dflt : dflt | p.dflt) as 0 | 1;
  }
  return { bits, dflt };
}
