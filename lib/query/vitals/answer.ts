/**
 * `valueSeries` of Web Vitals (`metric` series of `value` numbers, by page, by device type or overall) from
 * the parts' vitals tables (build.ts) instead of scanning events: the cost grows with cells × buckets of
 * the period, not with its events. Rows and visitors are exact (sums, unions of the cells' visitor sets);
 * each number in `counts` is a bucket's middle, within 1% of the stored values it stands for (buckets.ts),
 * except the numbers of exact tables (raw tail, parts without a table), which are the values themselves. A
 * series' reporters are the union of its cells' kept reporters (at most 5 each, build.ts), counted up to 5:
 * exact below 5, as the scan's.
 */
import { decodeSetInto } from "../../parts/visitor_set.ts";
import { wholeHourOffsets } from "../rollup/answer.ts";
import { matches } from "../scan/filters.ts";
import type {
  Filter,
  NumberRuns,
  Scope,
  SeriesGroup,
  ValueSeriesOptions,
  ValueSeriesResult,
} from "../types.ts";
import { bucketValue, RELATIVE_ERROR } from "./buckets.ts";
import { mergeRuns, noRuns, REPORTERS_COUNTED } from "../aggregate/value_series.ts";
import { VITALS_EVENT, type VitalsTable } from "./build.ts";

/** A value series answer that may come from histograms: `relative_error` is the bound on its numbers (0: exact). */
export type VitalsResult = ValueSeriesResult & { relative_error: number };

/** Fields a question may break down or filter by (the table's cell fields besides hour, touchpoint, traffic). */
const CELL_FIELDS = new Set(["page", "device_type"]);

const isVitalsFilter = (f: Filter) =>
  f.field === "event_type" && (f.op === "eq" || f.op === "in") &&
  (Array.isArray(f.value) ? f.value.length === 1 && f.value[0] === VITALS_EVENT : f.value === VITALS_EVENT);

/** Why the vitals tables cannot answer this question (the scan does), or null when they can. */
export function vitalsBlocker(s: Scope, o: ValueSeriesOptions): string | null {
  if (s.cohort) return "a cohort";
  if (o.series !== "metric" || o.value !== "value") return "a series other than metric and value";
  if (o.by !== undefined && !CELL_FIELDS.has(o.by)) return `a breakdown by ${o.by}`;
  const filters = s.filters ?? [];
  if (!filters.some(isVitalsFilter)) return "no filter to $web_vitals events";
  const other = filters.find((f) => !isVitalsFilter(f) && !CELL_FIELDS.has(f.field));
  if (other) return `a filter on ${other.field}`;
  if (!wholeHourOffsets(s.timezone, s.from, s.to)) return "a timezone offset that is not whole hours";
  return null;
}

/**
 * Which of a table's hours the period takes (by hour index), or null when an hour has rows both inside and
 * outside it (the scan answers).
 */
export function hoursTaken(hours: VitalsTable["hours"], s: Scope): Uint8Array | null {
  const take = new Uint8Array(hours.length);
  for (let k = 0; k < hours.length; k++) {
    const h = hours[k];
    if (h.min >= s.from && h.max < s.to) take[k] = 1;
    else if (!(h.max < s.from || h.min >= s.to)) return null;
  }
  return take;
}

/** A table and the hours a question takes from it. */
export interface TableTaken {
  t: VitalsTable;
  take: Uint8Array;
}

/** One group's merged figures: rows, its people's visitor numbers, and per metric its rows and numbers. */
interface Acc {
  value: string | null;
  rows: number;
  /** visitor numbers: gathered in any order while merging, a set once finished */
  members: Gather | Members;
  series: Map<string, MergedSeries>;
}

interface MergedSeries {
  rows: number;
  /**
   * distinct visitor numbers of the people whose values count, at most REPORTERS_COUNTED: all of them while
   * fewer (every table's kept reporters were all of its series' then), else any 5 (the count is 5 then)
   */
  reps: number[];
  /** while merging: counts by bucket id - lo (ids of positive values lie within a few powers of ten) */
  lo: number;
  dense: Float64Array;
  /** while merging: counts of the other bucket ids (zero, negative values) */
  other: Map<number, number>;
  /** once finished: ascending bucket ids and their counts */
  ids: Int32Array;
  idCounts: Float64Array;
  /** exact values (raw tail, parts without a table) → count */
  values: Map<number, number>;
}

/** A question's tables merged: what a period's parts give, kept and answered again with a new raw tail. */
export interface Merged {
  groups: Map<string | null, Acc>;
  all: Acc;
  approximate: boolean;
  /** decoded bytes, roughly (what a cache weighs it at) */
  bytes: number;
}

const newAcc = (value: string | null): Acc => ({ value, rows: 0, members: new Gather(), series: new Map() });

/** Numbers gathered into a growing typed array. */
class Gather {
  a = new Uint32Array(64);
  n = 0;
  push(v: number) {
    if (this.n === this.a.length) this.grow(this.n + 1);
    this.a[this.n++] = v;
  }
  grow(size: number) {
    const next = new Uint32Array(Math.max(size, 2 * this.a.length));
    next.set(this.a.subarray(0, this.n));
    this.a = next;
  }
  get view(): Uint32Array {
    return this.a.subarray(0, this.n);
  }
}

/** Adds the members of an encoded set at bytes[from, to) (visitor_set.ts's delta varints). */
function gatherSet(g: Gather, bytes: Uint8Array, from: number, to: number) {
  if (g.n + (to - from) > g.a.length) g.grow(g.n + (to - from)); // at most one member a byte
  g.n = decodeSetInto(bytes, from, to, g.a, g.n);
}
/** Adds the numbers xs[from, to) not among `reps` yet, until it holds REPORTERS_COUNTED. */
function addReporters(reps: number[], xs: ArrayLike<number>, from: number, to: number): void {
  for (let e = from; e < to && reps.length < REPORTERS_COUNTED; e++) {
    if (!reps.includes(xs[e])) reps.push(xs[e]);
  }
}

const newSeries = (): MergedSeries => ({
  rows: 0,
  reps: [],
  lo: 0,
  dense: new Float64Array(0),
  other: new Map(),
  ids: new Int32Array(0),
  idCounts: new Float64Array(0),
  values: new Map(),
});

/** Makes room in a series' dense counts for bucket id `id` (with slack on the side it grew). */
function grow(sr: MergedSeries, id: number): void {
  const lo = sr.dense.length ? Math.min(sr.lo, id - 256) : id - 256;
  const hi = sr.dense.length ? Math.max(sr.lo + sr.dense.length, id + 256) : id + 256;
  const dense = new Float64Array(hi - lo);
  if (sr.dense.length) dense.set(sr.dense, sr.lo - lo);
  sr.lo = lo;
  sr.dense = dense;
}

/** Adds entries [from, to) of a stored table's series to a merged series. */
function addBuckets(
  sr: MergedSeries,
  key: ArrayLike<number>,
  count: ArrayLike<number>,
  from: number,
  to: number,
) {
  let lo = sr.lo, dense = sr.dense;
  for (let e = from; e < to; e++) {
    const id = key[e];
    if (id <= 0) {
      sr.other.set(id, (sr.other.get(id) ?? 0) + count[e]);
      continue;
    }
    let i = id - lo;
    if (i < 0 || i >= dense.length) {
      grow(sr, id);
      lo = sr.lo;
      dense = sr.dense;
      i = id - lo;
    }
    dense[i] += count[e];
  }
}

/**
 * The tables taken, merged (exact tables take every hour: their rows were cut to the period when built). Each
 * cell adds to its group only; the total is the groups' sums and union when finished.
 */
export function mergeTables(parts: TableTaken[], s: Scope, o: ValueSeriesOptions): Merged {
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const filters = (s.filters ?? []).filter((f) => !isVitalsFilter(f));
  const groups = new Map<string | null, Acc>();
  const all = newAcc(null);
  let approximate = false;
  for (const { t, take } of parts) {
    let tp = -1;
    if (s.touchpoint) {
      tp = t.tps.indexOf(s.touchpoint);
      if (tp < 0) continue;
    }
    const trOk = Uint8Array.from(t.traffics, (v) => (traffic.has(v) ? 1 : 0));
    const pass = (field: string, values: (string | null)[]) =>
      Uint8Array.from(values, (v) => (filters.every((f) => f.field !== field || matches(v, f)) ? 1 : 0));
    const pageOk = pass("page", t.pages), deviceOk = pass("device_type", t.devices);
    const byValues = o.by === "page" ? t.pages : o.by === "device_type" ? t.devices : null;
    const byCodes = o.by === "page" ? t.cPage : o.by === "device_type" ? t.cDevice : null;
    // per code of the grouping field: its group and that group's series by metric code (made when first met)
    const accOf: (Acc | undefined)[] = [];
    const seriesOf: (MergedSeries | null | undefined)[][] = [];
    const groupAt = (code: number): Acc => {
      let a = accOf[code];
      if (a) return a;
      if (!byValues) a = all;
      else {
        const value = byValues[code];
        a = groups.get(value);
        if (!a) groups.set(value, a = newAcc(value));
      }
      seriesOf[code] = [];
      return accOf[code] = a;
    };
    const n = t.cRows.length;
    let si = 0;
    for (let c = 0; c < n; c++) {
      const from = si;
      while (si < t.sCell.length && t.sCell[si] === c) si++;
      if (!take[t.cHour[c]] || (tp >= 0 && t.cTp[c] !== tp) || !trOk[t.cTraffic[c]]) continue;
      if (!pageOk[t.cPage[c]] || !deviceOk[t.cDevice[c]]) continue;
      if (!t.exact) approximate = true;
      const code = byCodes ? byCodes[c] : 0;
      const a = groupAt(code), local = seriesOf[code];
      a.rows += t.cRows[c];
      const setFrom = t.setAt[c], setTo = t.setAt[c + 1];
      if (setTo > setFrom) gatherSet(a.members as Gather, t.sets, setFrom, setTo);
      for (let k = from; k < si; k++) {
        const mc = t.sMetric[k];
        let sr = local[mc];
        if (sr === undefined) {
          const metric = t.metrics[mc];
          sr = null;
          if (metric !== null) {
            sr = a.series.get(metric) ?? null;
            if (!sr) a.series.set(metric, sr = newSeries());
          }
          local[mc] = sr;
        }
        if (sr === null) continue;
        sr.rows += t.sRows[k];
        if (sr.reps.length < REPORTERS_COUNTED) addReporters(sr.reps, t.reps, t.repAt[k], t.repAt[k + 1]);
        if (t.exact) {
          for (let e = t.at[k]; e < t.at[k + 1]; e++) {
            sr.values.set(t.key[e], (sr.values.get(t.key[e]) ?? 0) + t.count[e]);
          }
        } else addBuckets(sr, t.key, t.count, t.at[k], t.at[k + 1]);
      }
    }
  }
  // the total: the groups' sums and members together
  if (o.by) {
    const members = all.members as Gather;
    for (const g of groups.values()) {
      all.rows += g.rows;
      const m = (g.members as Gather).view;
      if (members.n + m.length > members.a.length) members.grow(members.n + m.length);
      members.a.set(m, members.n);
      members.n += m.length;
      for (const [metric, sr] of g.series) {
        let to = all.series.get(metric);
        if (!to) all.series.set(metric, to = newSeries());
        to.rows += sr.rows;
        if (to.reps.length < REPORTERS_COUNTED) addReporters(to.reps, sr.reps, 0, sr.reps.length);
        if (sr.dense.length) {
          if (!to.dense.length || sr.lo < to.lo || sr.lo + sr.dense.length > to.lo + to.dense.length) {
            grow(to, sr.lo);
            grow(to, sr.lo + sr.dense.length - 1);
          }
          const off = sr.lo - to.lo;
          for (let i = 0; i < sr.dense.length; i++) to.dense[off + i] += sr.dense[i];
        }
        for (const [id, c] of sr.other) to.other.set(id, (to.other.get(id) ?? 0) + c);
        for (const [v, c] of sr.values) to.values.set(v, (to.values.get(v) ?? 0) + c);
      }
    }
  }
  let bytes = 0;
  const finish = (a: Acc) => {
    a.members = membersOf((a.members as Gather).view);
    bytes += 200 + a.members.bytes;
    for (const sr of a.series.values()) {
      const ids: number[] = [], counts: number[] = [];
      for (const [id, c] of [...sr.other].sort((x, y) => x[0] - y[0])) {
        ids.push(id);
        counts.push(c);
      }
      for (let i = 0; i < sr.dense.length; i++) {
        if (sr.dense[i]) {
          ids.push(sr.lo + i);
          counts.push(sr.dense[i]);
        }
      }
      sr.ids = Int32Array.from(ids);
      sr.idCounts = Float64Array.from(counts);
      sr.dense = new Float64Array(0);
      sr.other = new Map();
      bytes += 100 + 12 * ids.length + 50 * sr.values.size;
    }
  };
  for (const g of groups.values()) finish(g);
  finish(all);
  return { groups, all, approximate, bytes };
}

/** A finished group's visitor numbers: sorted where sparse, a bit per number where dense. */
export interface Members {
  count: number;
  has(v: number): boolean;
  each(fn: (v: number) => void): void;
  bytes: number;
}

export function membersOf(xs: Uint32Array): Members {
  // many numbers (a total, a big page): marked in bits, no sort (sorting 1.2M numbers was a tenth of a cold
  // question at 10M); few: sorted
  let sorted: Uint32Array, n = 0, space = 0, bits: Uint8Array | null = null;
  if (xs.length >= 65_536) {
    for (let i = 0; i < xs.length; i++) if (xs[i] >= space) space = xs[i] + 1;
    bits = new Uint8Array(Math.ceil(space / 8));
    for (let i = 0; i < xs.length; i++) {
      const v = xs[i], m = 1 << (v & 7);
      if (!(bits[v >> 3] & m)) {
        bits[v >> 3] |= m;
        n++;
      }
    }
    if (4 * n <= space / 8) {
      sorted = new Uint32Array(n);
      for (let v = 0, k = 0; v < space; v++) if (bits[v >> 3] & (1 << (v & 7))) sorted[k++] = v;
      bits = null;
    } else sorted = new Uint32Array(0);
  } else {
    sorted = xs.slice().sort();
    for (let i = 0; i < sorted.length; i++) {
      if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
    }
    space = n ? sorted[n - 1] + 1 : 0;
  }
  if (bits || 4 * n > space / 8) {
    if (!bits) {
      bits = new Uint8Array(Math.ceil(space / 8));
      for (let i = 0; i < n; i++) bits[sorted[i] >> 3] |= 1 << (sorted[i] & 7);
    }
    const b = bits;
    return {
      count: n,
      bytes: b.byteLength,
      has: (v) => v < space && (b[v >> 3] & (1 << (v & 7))) !== 0,
      each(fn) {
        for (let v = 0; v < space; v++) if (b[v >> 3] & (1 << (v & 7))) fn(v);
      },
    };
  }
  const list = sorted.slice(0, n);
  return {
    count: n,
    bytes: list.byteLength,
    each(fn) {
      for (const v of list) fn(v);
    },
    has(v) {
      let lo = 0, hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      return lo < list.length && list[lo] === v;
    },
  };
}

/**
 * The answer from the parts' merged figures and, when there is one, the raw tail's (merged apart, so the
 * parts' can be kept): rows add up, the tail's people count where the parts' members lack them.
 */
export function answerOf(parts: Merged, tail: Merged | null, o: ValueSeriesOptions): VitalsResult {
  const out = (a: Acc | undefined, b: Acc | undefined): SeriesGroup => {
    const am = a?.members as Members | undefined, bm = b?.members as Members | undefined;
    let visitors = am?.count ?? 0;
    bm?.each((v) => {
      if (!am?.has(v)) visitors++;
    });
    const series: SeriesGroup["series"] = {};
    const names = new Set([...(a?.series.keys() ?? []), ...(b?.series.keys() ?? [])]);
    for (const name of names) {
      const x = a?.series.get(name), y = b?.series.get(name);
      const reps = [...(x?.reps ?? [])];
      if (y) addReporters(reps, y.reps, 0, y.reps.length);
      series[name] = lazyCounts((x?.rows ?? 0) + (y?.rows ?? 0), reps.length, () => countsOf([x, y]));
    }
    return { value: (a ?? b)!.value, rows: (a?.rows ?? 0) + (b?.rows ?? 0), visitors, series };
  };
  const groups: SeriesGroup[] = [];
  if (o.by) {
    for (const [value, g] of parts.groups) groups.push(out(g, tail?.groups.get(value)));
    for (const [value, g] of tail?.groups ?? []) if (!parts.groups.has(value)) groups.push(out(undefined, g));
  }
  return {
    total: out(parts.all, tail?.all),
    groups,
    relative_error: parts.approximate || tail?.approximate ? RELATIVE_ERROR : 0,
  };
}

/** A series whose counts are merged when first read (a tool shows the percentiles of a few groups only). */
function lazyCounts(
  rows: number,
  reporters: number,
  make: () => NumberRuns,
): { rows: number; reporters: number; counts: NumberRuns } {
  const series = {
    rows,
    reporters,
    get counts(): NumberRuns {
      const counts = make();
      Object.defineProperty(series, "counts", { value: counts, enumerable: true });
      return counts;
    },
  };
  return series;
}

/**
 * Numbers and how often, ascending: bucket middles and exact values together. Bucket middles ascend with their
 * ids (buckets.ts), so each series' runs come sorted and only the lists are merged. The counts are a copy: a
 * kept merge's arrays are not handed out.
 */
function countsOf(list: (MergedSeries | undefined)[]): NumberRuns {
  let out = noRuns();
  for (const sr of list) {
    if (!sr) continue;
    const values = new Float64Array(sr.ids.length);
    for (let k = 0; k < values.length; k++) values[k] = bucketValue(sr.ids[k]);
    out = mergeRuns(out, { values, counts: sr.idCounts.slice() });
    if (sr.values.size) {
      const exact = [...sr.values].sort((a, b) => a[0] - b[0]);
      out = mergeRuns(out, {
        values: Float64Array.from(exact, (x) => x[0]),
        counts: Float64Array.from(exact, (x) => x[1]),
      });
    }
  }
  return out;
}
