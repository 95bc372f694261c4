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
import { isFew } from "../../answers/privacy.ts";
import type { EvBatch } from "../columns/batch.ts";
import type { Membership } from "../scan/ctx.ts";
import type { CohortExpr, Filter } from "../types.ts";
import {
  addCounts,
  addFirsts,
  addFirstsMatching,
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

/**
 * What the parts give each condition, taken one batch at a time (`evaluateParts` needs every batch at once:
 * a first row is found in one batch and its value read later). A first row's match with each condition on
 * its window is noted when it is found, so a batch can be let go once added. Arrays grow with the visitor
 * numbers the batches bring. The same state as `evaluateParts` over the same batches.
 */
export class PartsEvaluator {
  private all: Leaf[];
  private windows: string[];
  private counts: (Uint32Array | null)[];
  private firsts = new Map<number, Firsts>();
  private bits: (Uint8Array | null)[];
  private size = 0;

  constructor(private expr: CohortExpr, private where: CohortWhere) {
    this.all = leaves(expr);
    this.windows = cohortWindows(expr).map(windowKey);
    this.counts = this.all.map((l) => ("did" in l ? new Uint32Array(0) : null));
    this.bits = this.all.map((l) => ("first" in l ? new Uint8Array(0) : null));
  }

  /** Adds a part's batch read for window `k` (of `cohortWindows`). */
  add(k: number, e: EvBatch): void {
    this.grow(e.interner.visitorCount);
    const [from, to] = this.windows[k].split("|").map(Number);
    const m = baseMask(e, this.where, from, to);
    const firstLeaves: { filter: Filter; bits: Uint8Array }[] = [];
    this.all.forEach((l, x) => {
      if (this.windows.indexOf(windowKey(windowOf(l))) !== k) return;
      if ("did" in l) addCounts(this.counts[x]!, e, m, l.did.filters);
      else firstLeaves.push({ filter: l.first.filter, bits: this.bits[x]! });
    });
    if (firstLeaves.length) {
      let f = this.firsts.get(k);
      if (!f) this.firsts.set(k, f = newFirsts(this.size));
      addFirstsMatching(f, e, m, firstLeaves);
    }
  }

  /** The state, for the `n` visitors numbered now (every visitor of the added batches). */
  finish(n: number): PartsState {
    this.grow(n);
    let bytes = 0;
    const state = this.all.map((l, x): LeafState => {
      if ("did" in l) {
        const counts = this.counts[x]!.slice(0, n);
        bytes += counts.byteLength;
        return { counts };
      }
      const k = this.windows.indexOf(windowKey(windowOf(l)));
      const f = this.firsts.get(k) ?? newFirsts(n);
      const bits = this.bits[x]!.slice(0, n);
      bytes += n + 28 * n;
      return {
        firsts: { t: f.t.slice(0, n), dt: f.dt.slice(0, n), seq: f.seq.slice(0, n), b: f.b.slice(0, n) },
        bits,
      };
    });
    return { leaves: state, bytes };
  }

  /** Room for `n` visitors (doubling, so growing costs little over a stream). */
  private grow(n: number): void {
    if (n <= this.size) return;
    const size = Math.max(n, this.size * 2);
    const more = <T extends Uint8Array | Uint32Array | Float64Array | Int32Array>(a: T, fill = 0): T => {
      const out = new (a.constructor as new (n: number) => T)(size);
      out.set(a);
      if (fill) out.fill(fill, a.length);
      return out;
    };
    this.counts = this.counts.map((a) => a && more(a));
    this.bits = this.bits.map((a) => a && more(a));
    for (const [k, f] of this.firsts) {
      this.firsts.set(k, {
        t: more(f.t),
        dt: more(f.dt),
        seq: more(f.seq),
        b: more(f.b, -1),
        i: more(f.i),
      });
    }
    this.size = size;
  }
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
  const seen = { tellsFew: false };
  const { bits, dflt } = combine(expr, bitsOf, n, seen);
  // a cohort of 1 to 4 reads "fewer than 5" anyway: set beside another count it tells no exact number
  let members = 0;
  if (seen.tellsFew) { for (let v = 0; v < n; v++) members += bits[v]; }
  const tellsFew = seen.tellsFew && !isFew(members);
  return { id: nextId++, bits, dflt, ...(tellsFew ? { tellsFew: true as const } : {}) };
}

/**
 * Combines the conditions' bits as the definition says. On the way it notes (`seen.tellsFew`) a part that
 * changes the members by 1 to 4 visitors: a `not` over 1 to 4 visitors, or one condition of an all/any that
 * alone leaves out (all) or adds (any) 1 to 4. Such a cohort's exact counts (of 5 or more members), set beside
 * the counts without that part, name those few visitors' events ("not: did odd with p containing victim2@" counted every
 * visitor but one, and guessed substrings rebuilt the value), so questions under it are refused.
 */
function combine(
  x: CohortExpr,
  leafBits: Map<Leaf, Uint8Array>,
  n: number,
  seen: { tellsFew: boolean },
): { bits: Uint8Array; dflt: 0 | 1 } {
  if ("did" in x || "first" in x) return { bits: leafBits.get(x)!, dflt: 0 };
  if ("not" in x) {
    const inner = combine(x.not, leafBits, n, seen);
    const bits = new Uint8Array(n);
    let left = 0;
    for (let v = 0; v < n; v++) {
      bits[v] = inner.bits[v] ^ 1;
      left += inner.bits[v];
    }
    if (isFew(left)) seen.tellsFew = true;
    return { bits, dflt: inner.dflt ? 0 : 1 };
  }
  const and = "all" in x;
  const parts = (and ? x.all : x.any).map((y) => combine(y, leafBits, n, seen));
  const bits = new Uint8Array(n).fill(and ? 1 : 0);
  let dflt: 0 | 1 = and ? 1 : 0;
  for (const p of parts) {
    for (let v = 0; v < n; v++) bits[v] = and ? bits[v] & p.bits[v] : bits[v] | p.bits[v];
    dflt = (and ? dflt & p.dflt : dflt | p.dflt) as 0 | 1;
  }
  if (parts.length > 1 && !seen.tellsFew) {
    // a visitor only one part decides (the one part it fails under all, the one it meets under any)
    const alone = new Uint32Array(parts.length);
    for (let v = 0; v < n; v++) {
      let deciders = 0, which = -1;
      for (let i = 0; i < parts.length; i++) {
        if ((parts[i].bits[v] === 1) !== and) {
          deciders++;
          which = i;
        }
      }
      if (deciders === 1) alone[which]++;
    }
    if (alone.some(isFew)) seen.tellsFew = true;
  }
  return { bits, dflt };
}
