/**
 * A list by one field sorted by a sum (the page list by pageviews), kept per period: each value's additive
 * sums over the parts and each value's visitors (or viewers) over the parts, as a bit per visitor number where
 * dense, else sorted numbers (4 bytes a member). Asked again over the same period, the list reads no rows of
 * the field and no visitor sets: the raw tail's rows are added to the sums, and its visitors to a value's count
 * where the parts' members lack them. Exact. Built once per period from the rows a question read (one pass over
 * the field's sets, as a list sorted by visitors pays every question without it).
 */
import { forEachMember } from "../../parts/visitor_set.ts";
import { sortAndPage } from "../order.ts";
import type { AggregateOptions, KeyValue, MetricValues, Row, Scope } from "../types.ts";
import { ENDS_METRICS, fieldsOf, lazy, ROLLUP_METRICS } from "./answer.ts";
import type { Rollup } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import type { PeriodUnion } from "./unions.ts";
import { releaseViews } from "./let_go.ts";
import { addRowReporters } from "./reporters.ts";

/** A value's additive figures over the parts' rows in scope. */
interface Sums {
  events: number;
  pageviews: number;
  rage: number;
  engN: number;
  engSum: number;
  scrollN: number;
  scrollSum: number;
  /** up to 5 of the value's reporters (reporters.ts) */
  rep: number[];
}

/** A value's visitors (or viewers) over the parts: a bit per visitor number when dense, else sorted numbers. */
interface Members {
  count: number;
  bits: Uint8Array | null;
  sorted: Uint32Array | null;
}

/** The parts' list material of one field in a period. */
export interface KeptList {
  /** per value, in the order the rows first appear (as the answer's groups) */
  sums: Map<string | null, Sums>;
  /** every value's parts' visitors and viewers (null: not built, a question of that kind reads the rows) */
  visitors: Map<string | null, Members> | null;
  viewers: Map<string | null, Members> | null;
}

/** The memory a kept list holds (for the cache's budget). */
export const keptListBytes = (k: KeptList): number => {
  let n = k.sums.size * 200 + 200;
  for (const u of [k.visitors, k.viewers]) {
    for (const m of u?.values() ?? []) n += (m.bits?.byteLength ?? 0) + (m.sorted?.byteLength ?? 0) + 60;
  }
  return n;
};

/** Whether a value's parts' members hold visitor v. */
function has(m: Members, v: number): boolean {
  if (m.bits) return (v >> 3) < m.bits.length && (m.bits[v >> 3] & (1 << (v & 7))) !== 0;
  const a = m.sorted!;
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === v;
}

/**
 * Whether a question's rows may come from a kept list: one breakdown field, no bucket, filter or traffic
 * beside it, rollup metrics only (any order: every value's visitors are kept, so lists sorted by visitors too).
 */
export function keptListFits(s: Scope, o: AggregateOptions): boolean {
  const by = o.breakdown ?? [];
  // a page list's entries, exits and exit rate come from the period's kept session totals (`more` below);
  // rows sorted by one of those would need them before the sort: such a list reads its rows
  const sortBy = o.sort?.by ?? o.metrics[0];
  return by.length === 1 && by[0] !== "traffic" && !o.bucket && !(s.filters ?? []).length &&
    o.metrics.every((m) => ROLLUP_METRICS.has(m) || (by[0] === "page" && ENDS_METRICS.has(m))) &&
    (sortBy === "key" || ROLLUP_METRICS.has(sortBy));
}

/** The rows of field f in scope of one part (`inScope` says which rows are). */
export type RowsInScope = (partIndex: number, r: Rollup) => number[];

function addRow(out: Map<string | null, Sums>, r: Rollup, i: number) {
  const v = r.values[r.value[i]];
  let g = out.get(v);
  if (!g) {
    out.set(
      v,
      g = { events: 0, pageviews: 0, rage: 0, engN: 0, engSum: 0, scrollN: 0, scrollSum: 0, rep: [] },
    );
  }
  g.events += r.events[i];
  g.pageviews += r.pageviews[i];
  g.rage += r.rage[i];
  g.engN += r.engN[i];
  g.engSum += r.engSum[i];
  g.scrollN += r.scrollN[i];
  g.scrollSum += r.scrollSum[i];
  addRowReporters(g.rep, r, i);
}

/** The kinds of members a kept list is built with (a kind not built is taken from the list it replaces). */
export interface ListKinds {
  visitors: boolean;
  viewers: boolean;
}

/**
 * A period's kept list built from the rows a question read, a slice at a time (`step`), so that it can be built
 * after the answer has gone out without holding the thread long (plain_answers.ts), or at once (`finish`).
 *
 * Each value's union is made alone in one scratch bitmap (a bit per visitor number) reused value after value:
 * the value's rows of every part are OR-ed into it (at a million visitor numbers 125 kB, which stays in a
 * core's cache), its new bits counted as they are set, then the bits copied out (dense) or read out as sorted
 * numbers while the scratch is cleared. The union builder (unions.ts) made a bitmap per value at once and OR-ed
 * the rows part after part across all of them (at 10M events the page list's 122 values: 15 MB of fresh
 * bitmaps, most members a cache miss), counted them, then `compact` read every sparse bitmap again a byte at a
 * time. A union the question already counted for the period (`built`) is taken as it is, value by value.
 */
export class KeptListBuild {
  private sums: Map<string | null, Sums> | null = null;
  /** per value, its rows in scope as pairs of part index and row (while unions are made) */
  private rows: Map<string | null, number[]> | null = null;
  private values: (string | null)[] = [];
  private jobs: {
    viewers: boolean;
    union: PeriodUnion | undefined;
    at: number;
    out: Map<string | null, Members>;
  }[];
  private scratch: Int32Array | null = null;
  private failed = false;

  constructor(
    private parts: RollupParts[],
    private f: number,
    private inScope: RowsInScope,
    private before: KeptList | undefined,
    private space: number,
    readonly kinds: ListKinds,
    built: (viewers: boolean) => PeriodUnion | undefined = () => undefined,
  ) {
    this.jobs = [false, true]
      .filter((v) => v ? kinds.viewers : kinds.visitors)
      .map((viewers) => ({ viewers, union: built(viewers), at: 0, out: new Map() }));
  }

  /** Whether nothing is left to do. */
  get done(): boolean {
    return this.failed || (this.sums !== null && this.jobs.every((j) => j.at >= this.values.length));
  }

  /** Works until performance.now() passes `until` (one step at least: the sums, or a value); true when done. */
  step(until: number): boolean {
    if (!this.sums) {
      // the sums and each value's rows in one pass over the rows in scope
      const sums = new Map<string | null, Sums>(), rows = new Map<string | null, number[]>();
      this.parts.forEach((p, pi) => {
        const r = p.field(this.f);
        for (const i of this.inScope(pi, r)) {
          addRow(sums, r, i);
          const v = r.values[r.value[i]];
          let l = rows.get(v);
          if (!l) rows.set(v, l = []);
          l.push(pi, i);
        }
      });
      this.sums = sums;
      this.values = [...sums.keys()];
      if (this.jobs.some((j) => !j.union)) {
        // as the union builder: past 16 MB of bits the field has too many values to keep (unions.ts)
        if (this.values.length * wordBytes(Math.max(1, this.space)) > MAX_UNION_BYTES) this.failed = true;
        else this.rows = rows;
      }
      if (performance.now() >= until) return this.done;
    }
    for (const j of this.jobs) {
      while (j.at < this.values.length && !this.failed) {
        const value = this.values[j.at++];
        j.out.set(value, j.union ? compactOne(j.union, value) : this.unionOf(value, j.viewers));
        if (performance.now() >= until) return this.done;
      }
    }
    return this.done;
  }

  /** The list (null: too many values to keep), the slices left done now. */
  finish(): KeptList | null {
    while (!this.step(Infinity));
    // (the scratch is this build's alone: freed now, not at V8's next full collection; let_go.ts)
    releaseViews([this.scratch]);
    this.scratch = null;
    this.rows = null;
    if (this.failed) return null;
    const kind = (viewers: boolean) =>
      this.jobs.find((j) => j.viewers === viewers)?.out ??
        (viewers ? this.before?.viewers : this.before?.visitors) ?? null;
    return { sums: this.sums!, visitors: kind(false), viewers: kind(true) };
  }

  /** One value's members over the parts, made in the scratch. */
  private unionOf(value: string | null, viewers: boolean): Members {
    let w = this.scratch ??= new Int32Array(wordBytes(Math.max(1, this.space)) / 4);
    const rows = this.rows!.get(value) ?? [];
    let count = 0;
    for (let k = 0; k < rows.length; k += 2) {
      const r = this.parts[rows[k]].field(this.f), i = rows[k + 1];
      const from = viewers ? r.viewAt[i] : r.visAt[i], to = viewers ? r.visAt[i + 1] : r.viewAt[i];
      let at = orWords(w, r.sets, from, to, -1);
      count += added.n;
      while (at < to) {
        // a number past the space given (not expected from parts): the scratch grows
        const grown = new Int32Array(Math.max(Math.ceil((past.at + 1) / 32), w.length * 2));
        grown.set(w);
        w = this.scratch = grown;
        at = orWords(w, r.sets, at, to, past.prev);
        count += added.n;
      }
    }
    return takeOut(w, count);
  }
}

/** The list kept for field f after a question read its rows, built at once (KeptListBuild). */
export function buildKeptList(
  parts: RollupParts[],
  f: number,
  inScope: RowsInScope,
  before: KeptList | undefined,
  space: number,
  kinds: ListKinds,
  built: (viewers: boolean) => PeriodUnion | undefined = () => undefined,
): KeptList | null {
  return new KeptListBuild(parts, f, inScope, before, space, kinds, built).finish();
}

/** The union builder's largest union (unions.ts MAX_BYTES): a list of more values is not kept. */
const MAX_UNION_BYTES = 16 * 1024 * 1024;

/** Bytes of a bit per number below n, whole 32-bit words (as unions.ts). */
const wordBytes = (n: number) => Math.ceil(n / 32) * 4;

/** A kept union's value compacted (a value it lacks has no members). */
function compactOne(u: PeriodUnion, value: string | null): Members {
  const x = u.ids.get(value);
  if (x === undefined) return { count: 0, bits: null, sorted: new Uint32Array(0) };
  const count = u.counts.get(value) ?? 0, b = u.bits[x];
  return count * 4 >= b.byteLength
    ? { count, bits: b, sorted: null }
    : { count, bits: null, sorted: membersOf(b, count) };
}

/** Where `orWords` stopped (the member past the scratch, and the one before it), and the members it added. */
const past = { at: -1, prev: -1 };
const added = { n: 0 };

/**
 * Sets the bits of a set's members (delta varints in bytes[from, to), after member `prev`) in w, counting those
 * not set before (`added`); returns `to`, or the index of the first member past w's bits (then in `past`). A
 * function of its own (V8 compiles a hot loop inside a larger one only there: unions.ts `orMembers`).
 */
function orWords(w: Int32Array, bytes: Uint8Array, from: number, to: number, prev: number): number {
  const limit = w.length * 32;
  let n = 0;
  for (let k = from; k < to;) {
    const at = k;
    let d = bytes[k++];
    if (d >= 0x80) {
      d &= 0x7f;
      let shift = 7, c: number;
      do {
        c = bytes[k++];
        d += (c & 0x7f) * 2 ** shift;
        shift += 7;
      } while (c & 0x80);
    }
    const v = prev + d + 1;
    if (v >= limit) {
      past.at = v;
      past.prev = prev;
      added.n = n;
      return at;
    }
    prev = v;
    // counted without a branch (most members are in another part's set of the value too: a branch the
    // processor mispredicts)
    const x = w[v >>> 5], s = v & 31;
    n += ((x >>> s) & 1) ^ 1;
    w[v >>> 5] = x | (1 << s);
  }
  added.n = n;
  return to;
}

/**
 * The scratch's `count` members, and the scratch cleared: its bits copied out when a bit per number is smaller
 * than 4 bytes a member, else its numbers ascending (a word at a time, empty words skipped).
 */
function takeOut(w: Int32Array, count: number): Members {
  if (count * 4 >= w.byteLength) {
    const bits = new Uint8Array(w.byteLength);
    bits.set(new Uint8Array(w.buffer, w.byteOffset, w.byteLength));
    w.fill(0);
    return { count, bits, sorted: null };
  }
  const sorted = new Uint32Array(count);
  let k = 0;
  for (let i = 0; i < w.length; i++) {
    const x = w[i];
    if (x === 0) continue;
    w[i] = 0;
    k = wordMembers(x, i * 32, sorted, k);
  }
  return { count, bits: null, sorted };
}

/**
 * A word's set bits as numbers from `base` up, written into `out` from index k; returns the index after them.
 * (Little-endian: a Uint8Array over these words has bit v at byte v >> 3, as unions.ts and `has` read them.)
 */
function wordMembers(x: number, base: number, out: Uint32Array, k: number): number {
  while (x !== 0) {
    const low = x & -x;
    out[k++] = base + 31 - Math.clz32(low);
    x ^= low;
  }
  return k;
}

/** The numbers whose bits are set, ascending (a word at a time, empty words skipped). */
function membersOf(b: Uint8Array, count: number): Uint32Array {
  const sorted = new Uint32Array(count);
  // (the unions' bits are whole 32-bit words, unions.ts; an unaligned view's bytes are read one by one)
  const whole = b.byteOffset % 4 === 0 ? b.length >> 2 : 0;
  const words = new Int32Array(b.buffer, b.byteOffset, whole);
  let k = 0;
  for (let i = 0; i < whole; i++) if (words[i] !== 0) k = wordMembers(words[i], i * 32, sorted, k);
  for (let i = whole * 4; i < b.length; i++) {
    const byte = b[i];
    if (!byte) continue;
    for (let j = 0; j < 8; j++) if (byte & (1 << j)) sorted[k++] = i * 8 + j;
  }
  return sorted;
}

/**
 * The rows of a question from a kept list and the raw tail's rows of field f (`tail` null: none), sorted and
 * paged as asked; null when a kind asked has no kept unions (the field's rows are read instead).
 */
export function rowsFromKept(
  kept: KeptList,
  tail: { r: Rollup; rows: number[] } | null,
  o: AggregateOptions,
  /** sets a row's other metrics (a page's entries and exits) from its value and sums, before the sort */
  more: ((metrics: MetricValues, value: string | null, pageviews: number) => void) | null = null,
): { rows: Row[]; total_rows: number } | null {
  // a kind asked whose unions were not built (a question of that kind reads the rows and builds them)
  if (o.metrics.some((m) => (m === "visitors" && !kept.visitors) || (m === "viewers" && !kept.viewers))) {
    return null;
  }
  const by = o.breakdown![0];
  const sums = new Map<string | null, Sums>();
  for (const [v, g] of kept.sums) sums.set(v, { ...g, rep: [...g.rep] });
  for (const i of tail?.rows ?? []) addRow(sums, tail!.r, i);
  // the tail's visitors (or viewers) of a value that the parts' bits lack, counted when asked
  // one pass over the tail's rows per kind, on the first count read (a list sorted by visitors reads all)
  const extras: (Map<string | null, Set<number>> | null)[] = [null, null];
  const extra = (value: string | null, viewers: boolean): number => {
    if (!tail) return 0;
    let by = extras[viewers ? 1 : 0];
    if (!by) {
      by = extras[viewers ? 1 : 0] = new Map();
      const kind = viewers ? kept.viewers : kept.visitors;
      for (const i of tail.rows) {
        const v = tail.r.values[tail.r.value[i]], m = kind?.get(v);
        let seen = by.get(v);
        if (!seen) by.set(v, seen = new Set());
        const from = viewers ? tail.r.viewAt[i] : tail.r.visAt[i];
        const to = viewers ? tail.r.visAt[i + 1] : tail.r.viewAt[i];
        forEachMember(tail.r.sets, from, to, (x) => {
          if (!(m && has(m, x))) seen!.add(x);
        });
      }
    }
    return by.get(value)?.size ?? 0;
  };
  const rows: Row[] = [];
  for (const [value, g] of sums) {
    const key: Record<string, KeyValue> = { [by]: value };
    const metrics: MetricValues = {};
    for (const m of o.metrics) {
      if (m === "visitors" || m === "viewers") {
        const viewers = m === "viewers";
        lazy(
          metrics,
          m,
          () => ((viewers ? kept.viewers : kept.visitors)?.get(value)?.count ?? 0) + extra(value, viewers),
        );
      } else {
        metrics[m] = m === "events"
          ? g.events
          : m === "pageviews"
          ? g.pageviews
          : m === "rage_clicks"
          ? g.rage
          : m === "engagement_time_s"
          ? (g.engN ? g.engSum / g.engN / 1000 : null)
          : m === "scroll_depth_percent"
          ? (g.scrollN ? g.scrollSum / g.scrollN : null)
          : m === "reporters"
          ? g.rep.length
          : null;
      }
    }
    more?.(metrics, value, g.pageviews);
    rows.push({ key, metrics });
  }
  return sortAndPage(rows, o);
}

/** The field a kept list of a question is of. */
export const keptListField = (s: Scope, o: AggregateOptions): number => fieldsOf(s, o).rowField;
