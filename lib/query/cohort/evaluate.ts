/**
 * A cohort's members, exactly: every condition of the definition is evaluated over the stored events of its
 * window (parts plus raw tail, as questions read them) into one bit per visitor number, then combined. The
 * result is a `Membership` a question's scan masks rows with (scan/ctx.ts). Only human events count; a
 * visitor is a member or not as a whole, so per-run sums of the aggregate loops stay exact.
 */
import type { EnvName } from "../../store/records.ts";
import type { EvBatch } from "../columns/batch.ts";
import { HUMAN } from "../columns/batch.ts";
import { eventView } from "../columns/views.ts";
import { codeMask, type Membership } from "../scan/ctx.ts";
import { matches } from "../scan/filters.ts";
import type { CohortExpr, Filter } from "../types.ts";

export type { Membership };

/** What evaluation needs from the engine: the batches of a window, and the visitor count after loading. */
export interface CohortLoader {
  events(from: number, to: number): Promise<EvBatch[]>;
  visitorCount(): number;
}

export interface CohortWhere {
  org: string;
  env: EnvName;
  touchpoint?: string | null;
}

let nextId = 1;

type Leaf = Extract<CohortExpr, { did: unknown } | { first: unknown }>;

function leaves(x: CohortExpr, out: Leaf[] = []): Leaf[] {
  if ("all" in x) x.all.forEach((y) => leaves(y, out));
  else if ("any" in x) x.any.forEach((y) => leaves(y, out));
  else if ("not" in x) leaves(x.not, out);
  else out.push(x);
  return out;
}

const windowOf = (l: Leaf) => ("did" in l ? l.did : l.first);

/** The distinct windows a definition's conditions read, in order of first use. */
export function cohortWindows(expr: CohortExpr): { from: number; to: number }[] {
  const seen = new Map<string, { from: number; to: number }>();
  for (const l of leaves(expr)) {
    const w = windowOf(l);
    if (!seen.has(`${w.from}|${w.to}`)) seen.set(`${w.from}|${w.to}`, { from: w.from, to: w.to });
  }
  return [...seen.values()];
}

/** Rows of a batch that are human events of the touchpoint inside [from, to). */
function baseMask(e: EvBatch, where: CohortWhere, from: number, to: number): Uint8Array {
  const tp = eventView(e, "touchpoint");
  const tpOk = codeMask(tp, (s) => !where.touchpoint || s === where.touchpoint);
  const m = new Uint8Array(e.n), t = e.t, bits = e.bits, codes = tp.codes;
  for (let i = 0; i < e.n; i++) {
    m[i] = (bits[i] & HUMAN) && t[i] >= from && t[i] < to && tpOk[codes[i]] ? 1 : 0;
  }
  return m;
}

/** Visitors with at least `min` rows matching every filter. */
function didBits(batches: EvBatch[], base: Uint8Array[], filters: Filter[], min: number, n: number) {
  const counts = new Uint32Array(n);
  batches.forEach((e, b) => {
    const m = base[b], vis = e.vis;
    const tests = filters.map((f) => {
      const v = eventView(e, f.field);
      if (!v.codes.length) return matches(null, f) ? null : "none" as const;
      return { codes: v.codes, ok: codeMask(v, (s) => matches(s, f)) };
    });
    if (tests.includes("none")) return;
    const live = tests.filter((x) => x !== null) as { codes: ArrayLike<number>; ok: Uint8Array }[];
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
  });
  const out = new Uint8Array(n);
  for (let v = 0; v < n; v++) out[v] = counts[v] >= min ? 1 : 0;
  return out;
}

/** Each visitor's first row in the window: batch and row (-1: none), ordered by time, device time, number. */
function firstRows(batches: EvBatch[], base: Uint8Array[], n: number) {
  const fb = new Int32Array(n).fill(-1), fi = new Int32Array(n);
  const ft = new Float64Array(n), fdt = new Float64Array(n), fseq = new Float64Array(n);
  batches.forEach((e, b) => {
    const m = base[b], vis = e.vis, t = e.t;
    for (let i = 0; i < e.n; i++) {
      if (!m[i]) continue;
      const v = vis[i];
      if (fb[v] >= 0) {
        if (t[i] > ft[v]) continue;
        if (t[i] === ft[v]) {
          const dt = e.dt[i], seq = e.seq[i];
          if (dt > fdt[v] || (dt === fdt[v] && seq >= fseq[v])) continue;
        }
      }
      fb[v] = b;
      fi[v] = i;
      ft[v] = t[i];
      fdt[v] = e.dt[i];
      fseq[v] = e.seq[i];
    }
  });
  return { fb, fi };
}

function firstBits(batches: EvBatch[], first: ReturnType<typeof firstRows>, f: Filter, n: number) {
  const out = new Uint8Array(n);
  const oks = batches.map((e) => {
    const v = eventView(e, f.field);
    return { v, ok: codeMask(v, (s) => matches(s, f)), none: matches(null, f) };
  });
  for (let vis = 0; vis < n; vis++) {
    const b = first.fb[vis];
    if (b < 0) continue;
    const { v, ok, none } = oks[b];
    out[vis] = (v.codes.length ? ok[v.codes[first.fi[vis]]] : none) ? 1 : 0;
  }
  return out;
}

/** Evaluates a definition: one load per distinct window, one pass per condition. */
export async function evaluateCohort(
  load: CohortLoader,
  where: CohortWhere,
  expr: CohortExpr,
): Promise<Membership> {
  const all = leaves(expr);
  const windows = new Map<string, { from: number; to: number; batches?: EvBatch[] }>();
  for (const l of all) {
    const w = windowOf(l);
    windows.set(`${w.from}|${w.to}`, { from: w.from, to: w.to });
  }
  for (const w of windows.values()) w.batches = await load.events(w.from, w.to);
  const n = load.visitorCount();
  const leafBits = new Map<Leaf, Uint8Array>();
  for (const [k, w] of windows) {
    const batches = w.batches!;
    const base = batches.map((e) => baseMask(e, where, w.from, w.to));
    let first: ReturnType<typeof firstRows> | undefined;
    for (const l of all) {
      const lw = windowOf(l);
      if (`${lw.from}|${lw.to}` !== k) continue;
      if ("did" in l) {
        leafBits.set(l, didBits(batches, base, l.did.filters, Math.max(1, l.did.min ?? 1), n));
      } else {
        first ??= firstRows(batches, base, n);
        leafBits.set(l, firstBits(batches, first, l.first.filter, n));
      }
    }
  }
  const combine = (x: CohortExpr): { bits: Uint8Array; dflt: 0 | 1 } => {
    if ("did" in x || "first" in x) return { bits: leafBits.get(x)!, dflt: 0 };
    if ("not" in x) {
      const inner = combine(x.not);
      const bits = new Uint8Array(n);
      for (let v = 0; v < n; v++) bits[v] = inner.bits[v] ^ 1;
      return { bits, dflt: inner.dflt ? 0 : 1 };
    }
    const and = "all" in x;
    const parts = (and ? x.all : x.any).map(combine);
    const bits = new Uint8Array(n).fill(and ? 1 : 0);
    let dflt: 0 | 1 = and ? 1 : 0;
    for (const p of parts) {
      for (let v = 0; v < n; v++) bits[v] = and ? bits[v] & p.bits[v] : bits[v] | p.bits[v];
      dflt = (and ? dflt & p.dflt : dflt | p.dflt) as 0 | 1;
    }
    return { bits, dflt };
  };
  const { bits, dflt } = combine(expr);
  return { id: nextId++, bits, dflt };
}
