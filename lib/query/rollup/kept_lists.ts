/**
 * A list by one field sorted by a sum (the page list by pageviews), kept per period: each value's additive
 * sums over the parts and, for the rows a question showed, the parts' visitors (or viewers) of the value as a
 * bit per visitor number (unions.ts). Asked again over the same period, the list reads no rows of the field
 * and no visitor sets: the raw tail's rows are added to the sums, and its visitors to a shown value's count
 * where the parts' bits lack them. Exact. A shown value without kept bits (the tail moved a new value into the
 * rows shown) makes the question read the field's rows as before, and the kept list is built again.
 */
import { forEachMember } from "../../parts/visitor_set.ts";
import { sortAndPage } from "../order.ts";
import type { AggregateOptions, KeyValue, MetricValues, Row, Scope } from "../types.ts";
import { fieldsOf, ROLLUP_METRICS } from "./answer.ts";
import type { Rollup } from "./build.ts";
import type { RollupParts } from "./pieces.ts";
import { buildUnion, holds, type PeriodUnion } from "./unions.ts";

/** At most this many values keep bits (a bit per visitor number each: 125 KB at 1M visitors). */
export const MAX_SHOWN = 32;

/** A value's additive figures over the parts' rows in scope. */
interface Sums {
  events: number;
  pageviews: number;
  rage: number;
  engN: number;
  engSum: number;
  scrollN: number;
  scrollSum: number;
}

/** The parts' list material of one field in a period. */
export interface KeptList {
  /** per value, in the order the rows first appear (as the answer's groups) */
  sums: Map<string | null, Sums>;
  /** the shown values' parts' visitors and viewers */
  visitors: PeriodUnion | null;
  viewers: PeriodUnion | null;
}

/** The memory a kept list holds (for the cache's budget). */
export const keptListBytes = (k: KeptList): number =>
  k.sums.size * 160 + (k.visitors?.bytes ?? 0) + (k.viewers?.bytes ?? 0) + 200;

/**
 * Whether a question's rows may come from a kept list: one breakdown field, no bucket, filter or traffic
 * beside it, rollup metrics only, and sorted by a sum (the rows shown are known before any union).
 */
export function keptListFits(s: Scope, o: AggregateOptions): boolean {
  const by = o.breakdown ?? [];
  const sortBy = o.sort?.by ?? o.metrics[0];
  return by.length === 1 && by[0] !== "traffic" && !o.bucket && !(s.filters ?? []).length &&
    o.metrics.every((m) => ROLLUP_METRICS.has(m)) && sortBy !== "visitors" && sortBy !== "viewers";
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
  if (!g) out.set(v, g = { events: 0, pageviews: 0, rage: 0, engN: 0, engSum: 0, scrollN: 0, scrollSum: 0 });
  g.events += r.events[i];
  g.pageviews += r.pageviews[i];
  g.rage += r.rage[i];
  g.engN += r.engN[i];
  g.engSum += r.engSum[i];
  g.scrollN += r.scrollN[i];
  g.scrollSum += r.scrollSum[i];
}

/**
 * The list kept for field f after a question read its rows: the parts' sums, and bits for the values shown
 * (with those an earlier list of the period kept, up to MAX_SHOWN). Null when too many values were shown.
 */
export function buildKeptList(
  parts: RollupParts[],
  f: number,
  inScope: RowsInScope,
  shown: (string | null)[],
  before: KeptList | undefined,
  space: number,
  kinds: { visitors: boolean; viewers: boolean },
): KeptList | null {
  const want = new Set(shown);
  for (const u of [before?.visitors, before?.viewers]) {
    for (const v of u?.ids.keys() ?? []) if (want.size < MAX_SHOWN) want.add(v);
  }
  if (want.size > MAX_SHOWN) return null;
  const wanted: RowsInScope = (pi, r) => inScope(pi, r).filter((i) => want.has(r.values[r.value[i]]));
  return {
    sums: sumsOf(parts, f, inScope),
    // only the kinds the question read the sets for (the others' sets may not be loaded): an earlier list's
    // bits of the other kind are of the same parts and stay
    visitors: kinds.visitors ? buildUnion(parts, f, wanted, false, space) : before?.visitors ?? null,
    viewers: kinds.viewers ? buildUnion(parts, f, wanted, true, space) : before?.viewers ?? null,
  };
}

/**
 * The rows of a question from a kept list and the raw tail's rows of field f (`tail` null: none), sorted and
 * paged as asked; null when a shown value has no kept bits (the field's rows are read instead).
 */
export function rowsFromKept(
  kept: KeptList,
  tail: { r: Rollup; rows: number[] } | null,
  o: AggregateOptions,
): { rows: Row[]; total_rows: number } | null {
  const by = o.breakdown![0];
  const sums = new Map<string | null, Sums>();
  for (const [v, g] of kept.sums) sums.set(v, { ...g });
  for (const i of tail?.rows ?? []) addRow(sums, tail!.r, i);
  // the tail's visitors (or viewers) of a value that the parts' bits lack, counted when asked
  const extra = (value: string | null, viewers: boolean): number => {
    const u = viewers ? kept.viewers : kept.visitors;
    const x = u?.ids.get(value) ?? -1;
    if (!tail) return 0;
    const seen = new Set<number>();
    for (const i of tail.rows) {
      if (tail.r.values[tail.r.value[i]] !== value) continue;
      const from = viewers ? tail.r.viewAt[i] : tail.r.visAt[i];
      const to = viewers ? tail.r.visAt[i + 1] : tail.r.viewAt[i];
      forEachMember(tail.r.sets, from, to, (v) => {
        if (!(x >= 0 && holds(u!, v, x))) seen.add(v);
      });
    }
    return seen.size;
  };
  const covered = (value: string | null, viewers: boolean) => {
    const u = viewers ? kept.viewers : kept.visitors;
    // a value the parts have no row of: its visitors are the tail's alone
    return !kept.sums.has(value) || (u !== null && u.ids.has(value));
  };
  const rows: Row[] = [];
  for (const [value, g] of sums) {
    const key: Record<string, KeyValue> = { [by]: value };
    const metrics: MetricValues = {};
    for (const m of o.metrics) {
      if (m === "visitors" || m === "viewers") {
        const viewers = m === "viewers", u = viewers ? kept.viewers : kept.visitors;
        lazyCount(metrics, m, () => (u?.counts.get(value) ?? 0) + extra(value, viewers));
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
          : null;
      }
    }
    rows.push({ key, metrics });
  }
  const paged = sortAndPage(rows, o);
  const kinds = o.metrics.filter((m) => m === "visitors" || m === "viewers");
  for (const r of paged.rows) {
    const v = r.key[by] as string | null;
    if (!kinds.every((m) => covered(v, m === "viewers"))) return null;
  }
  return paged;
}

/** The field a kept list of a question is of. */
export const keptListField = (s: Scope, o: AggregateOptions): number => fieldsOf(s, o).rowField;

/** A count computed when first read, then a plain value (rows not shown never pay their union). */
function lazyCount(out: MetricValues, m: "visitors" | "viewers", compute: () => number) {
  const settle = (value: number | null) =>
    Object.defineProperty(out, m, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(out, m, {
    enumerable: true,
    configurable: true,
    get() {
      const v = compute();
      settle(v);
      return v;
    },
    set(v: number | null) {
      settle(v);
    },
  });
}
