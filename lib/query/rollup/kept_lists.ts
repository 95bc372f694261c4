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
import { buildUnion, type PeriodUnion } from "./unions.ts";
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

/**
 * Each value's union held as bits when a bit per visitor number is smaller than 4 bytes a member, else sorted.
 * `own`: the union was built for this list alone, so the bits of a value held sorted are freed at once (a
 * cold overview or crawl coverage at 10M events left ~13 MB of them dead for V8's next full collection); a
 * union kept in the unions' share (`built`) is left as it is.
 */
function compact(u: PeriodUnion, own: boolean): Map<string | null, Members> {
  const out = new Map<string | null, Members>();
  for (const [value, x] of u.ids) {
    const count = u.counts.get(value) ?? 0, b = u.bits[x];
    if (count * 4 >= b.byteLength) {
      out.set(value, { count, bits: b, sorted: null });
      continue;
    }
    out.set(value, { count, bits: null, sorted: membersOf(b, count) });
    if (own) releaseViews([b]);
  }
  return out;
}

/**
 * The numbers whose bits are set, ascending (a function of its own: as a loop inside `compact` V8 compiled
 * only the loop and left that code at each value's end).
 */
function membersOf(b: Uint8Array, count: number): Uint32Array {
  const sorted = new Uint32Array(count);
  let k = 0;
  for (let i = 0; i < b.length; i++) {
    const byte = b[i];
    if (!byte) continue;
    for (let j = 0; j < 8; j++) if (byte & (1 << j)) sorted[k++] = i * 8 + j;
  }
  return sorted;
}

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

/** Each value's sums over the parts' rows in scope. */
function sumsOf(parts: RollupParts[], f: number, inScope: RowsInScope): Map<string | null, Sums> {
  const out = new Map<string | null, Sums>();
  parts.forEach((p, pi) => {
    const r = p.field(f);
    for (const i of inScope(pi, r)) addRow(out, r, i);
  });
  return out;
}

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

/**
 * The list kept for field f after a question read its rows: the parts' sums, and every value's visitors (or
 * viewers) for the kinds the question read sets of (an earlier list's other kind is of the same parts and
 * stays). Null when a kind's unions have too many values to build (unions.ts).
 */
export function buildKeptList(
  parts: RollupParts[],
  f: number,
  inScope: RowsInScope,
  before: KeptList | undefined,
  space: number,
  kinds: { visitors: boolean; viewers: boolean },
  built: (viewers: boolean) => PeriodUnion | undefined = () => undefined,
): KeptList | null {
  // a union the question already counted for the period (unions.ts) is taken as it is
  const union = (viewers: boolean) => {
    const kept = built(viewers);
    const u = kept ?? buildUnion(parts, f, inScope, viewers, space);
    return u ? compact(u, !kept) : undefined;
  };
  const visitors = kinds.visitors ? union(false) : before?.visitors ?? null;
  const viewers = kinds.viewers ? union(true) : before?.viewers ?? null;
  if (visitors === undefined || viewers === undefined) return null;
  return { sums: sumsOf(parts, f, inScope), visitors, viewers };
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
