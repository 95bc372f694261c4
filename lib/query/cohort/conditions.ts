/**
 * A cohort condition's work over rows, one batch at a time: which rows count (human events of the touchpoint
 * inside a window), how many matching rows each visitor has, and each visitor's first row. Done batch by
 * batch, so what the parts give can be kept and a raw tail added to a copy of it (evaluate.ts).
 */
import type { EnvName } from "../../store/records.ts";
import { type EvBatch, HUMAN } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import { codeMask } from "../scan/ctx.ts";
import { matches } from "../scan/filters.ts";
import type { Filter } from "../types.ts";

export interface CohortWhere {
  org: string;
  env: EnvName;
  touchpoint?: string | null;
}

/** Rows of a batch that are human events of the touchpoint inside [from, to). */
export function baseMask(e: EvBatch, where: CohortWhere, from: number, to: number): Uint8Array {
  const tp = eventView(e, "touchpoint");
  const tpOk = codeMask(tp, (s) => !where.touchpoint || s === where.touchpoint);
  const m = new Uint8Array(e.n), t = e.t, bits = e.bits, codes = tp.codes;
  for (let i = 0; i < e.n; i++) {
    m[i] = (bits[i] & HUMAN) && t[i] >= from && t[i] < to && tpOk[codes[i]] ? 1 : 0;
  }
  return m;
}

/** Adds, per visitor, the rows of `m` matching every filter (`counts` covers every visitor of the batch). */
export function addCounts(counts: Uint32Array, e: EvBatch, m: Uint8Array, filters: Filter[]): void {
  const tests = filters.map((f) => {
    const v = eventView(e, f.field);
    if (!v.codes.length) return matches(null, f) ? null : "none" as const;
    return { codes: v.codes, ok: codeMask(v, (s) => matches(s, f)) };
  });
  if (tests.includes("none")) return;
  const live = tests.filter((x) => x !== null) as { codes: ArrayLike<number>; ok: Uint8Array }[];
  const vis = e.vis;
  for (let i = 0; i < e.n; i++) {
    if (!m[i]) continue;
    let ok = true;
    for (const x of live) {
      if (!x.ok[x.codes[i]]) {
        ok = false;
        break;
      }
    }
    if (ok) counts[vis[i]]++;
  }
}

/** Each visitor's first row so far (time, device time, number; batch -1: none) and where it is. */
export interface Firsts {
  t: Float64Array;
  dt: Float64Array;
  seq: Float64Array;
  b: Int32Array;
  i: Int32Array;
}

export function newFirsts(n: number): Firsts {
  return {
    t: new Float64Array(n),
    dt: new Float64Array(n),
    seq: new Float64Array(n),
    b: new Int32Array(n).fill(-1),
    i: new Int32Array(n),
  };
}

/** What ordering needs of first rows (kept for the parts, without where the rows are). */
export type FirstTimes = Omit<Firsts, "i">;

/** True when (t, dt, seq) comes strictly before visitor v's first row: the earlier row wins a tie. */
export function isEarlier(f: FirstTimes, v: number, t: number, dt: number, seq: number): boolean {
  if (f.b[v] < 0 || t < f.t[v]) return true;
  if (t > f.t[v]) return false;
  return dt < f.dt[v] || (dt === f.dt[v] && seq < f.seq[v]);
}

/** Takes the rows of `m` in batch `e` (number `b` of the list the firsts refer to) into the firsts. */
export function addFirsts(f: Firsts, e: EvBatch, b: number, m: Uint8Array): void {
  const vis = e.vis, t = e.t;
  for (let i = 0; i < e.n; i++) {
    if (!m[i]) continue;
    const v = vis[i];
    if (!isEarlier(f, v, t[i], e.dt[i], e.seq[i])) continue;
    f.b[v] = b;
    f.i[v] = i;
    f.t[v] = t[i];
    f.dt[v] = e.dt[i];
    f.seq[v] = e.seq[i];
  }
}

/**
 * As `addFirsts`, noting for each condition in `leaves` whether the row taken as a visitor's first matches
 * its filter (the batch need not be kept: `firstMatches` reads the first rows' batches afterwards).
 */
export function addFirstsMatching(
  f: Firsts,
  e: EvBatch,
  m: Uint8Array,
  leaves: { filter: Filter; bits: Uint8Array }[],
): void {
  const tests = leaves.map(({ filter, bits }) => {
    const v = eventView(e, filter.field);
    return {
      codes: v.codes,
      ok: codeMask(v, (s) => matches(s, filter)),
      none: matches(null, filter) ? 1 : 0,
      bits,
    };
  });
  const vis = e.vis, t = e.t, dt = e.dt, seq = e.seq;
  for (let i = 0; i < e.n; i++) {
    if (!m[i]) continue;
    const v = vis[i];
    if (!isEarlier(f, v, t[i], dt[i], seq[i])) continue;
    f.b[v] = 0;
    f.i[v] = i;
    f.t[v] = t[i];
    f.dt[v] = dt[i];
    f.seq[v] = seq[i];
    for (const x of tests) x.bits[v] = x.codes.length ? x.ok[x.codes[i]] : x.none;
  }
}

/** Per visitor: 1 when its first row (in `batches`, as the firsts refer to them) matches the filter. */
export function firstMatches(f: Firsts, batches: EvBatch[], filter: Filter): Uint8Array {
  const out = new Uint8Array(f.b.length);
  const oks = batches.map((e) => {
    const v = eventView(e, filter.field);
    return { v, ok: codeMask(v, (s) => matches(s, filter)), none: matches(null, filter) };
  });
  for (let vis = 0; vis < out.length; vis++) {
    const b = f.b[vis];
    if (b < 0) continue;
    const { v, ok, none } = oks[b];
    out[vis] = (v.codes.length ? ok[v.codes[f.i[vis]]] : none) ? 1 : 0;
  }
  return out;
}
