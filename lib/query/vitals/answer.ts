/**
 * `valueSeries` of Web Vitals (`metric` series of `value` numbers, by page, by device type or overall) from
 * the parts' vitals tables (build.ts) instead of scanning events: the cost grows with cells × buckets of
 * the period, not with its events. Rows and visitors are exact (sums, unions of the cells' visitor sets);
 * each number in `counts` is a bucket's middle, within 1% of the stored values it stands for (buckets.ts),
 * except the numbers of exact tables (raw tail, parts without a table), which are the values themselves.
 */
import { DistinctCounter } from "../../parts/visitor_set.ts";
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
export function hoursTaken(t: VitalsTable, s: Scope): Uint8Array | null {
  const take = new Uint8Array(t.hours.length);
  for (let k = 0; k < t.hours.length; k++) {
    const h = t.hours[k];
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

interface Acc {
  value: string | null;
  rows: number;
  /** cells: table index and cell, flattened */
  cells: number[];
  /** per metric: rows, and series as table index and series, flattened */
  series: Map<string, { rows: number; refs: number[] }>;
}

/** The answer from the tables taken (exact ones take every hour: their rows were cut to the period when built). */
export function answerFromTables(parts: TableTaken[], s: Scope, o: ValueSeriesOptions): VitalsResult {
  const traffic = new Set<string | null>(s.traffic ?? ["human"]);
  const filters = (s.filters ?? []).filter((f) => !isVitalsFilter(f));
  const groups = new Map<string | null, Acc>();
  const all: Acc = { value: null, rows: 0, cells: [], series: new Map() };
  let approximate = false;
  parts.forEach(({ t, take }, ti) => {
    let tp = -1;
    if (s.touchpoint) {
      tp = t.tps.indexOf(s.touchpoint);
      if (tp < 0) return;
    }
    const trOk = Uint8Array.from(t.traffics, (v) => (traffic.has(v) ? 1 : 0));
    const pass = (field: string, values: (string | null)[]) =>
      Uint8Array.from(values, (v) => (filters.every((f) => f.field !== field || matches(v, f)) ? 1 : 0));
    const pageOk = pass("page", t.pages), deviceOk = pass("device_type", t.devices);
    const byValues = o.by === "page" ? t.pages : o.by === "device_type" ? t.devices : null;
    const byCodes = o.by === "page" ? t.cPage : o.by === "device_type" ? t.cDevice : null;
    const accOf: (Acc | undefined)[] = [];
    const group = (code: number): Acc => {
      let a = accOf[code];
      if (a) return a;
      const value = byValues![code];
      a = groups.get(value);
      if (!a) groups.set(value, a = { value, rows: 0, cells: [], series: new Map() });
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
      const g = byCodes ? group(byCodes[c]) : null;
      for (const a of g ? [g, all] : [all]) {
        a.rows += t.cRows[c];
        a.cells.push(ti, c);
        for (let k = from; k < si; k++) {
          const metric = t.metrics[t.sMetric[k]];
          if (metric === null) continue;
          let sr = a.series.get(metric);
          if (!sr) a.series.set(metric, sr = { rows: 0, refs: [] });
          sr.rows += t.sRows[k];
          sr.refs.push(ti, k);
        }
      }
    }
  });
  const counter = new DistinctCounter(0);
  const out = (a: Acc): SeriesGroup => {
    counter.next();
    for (let k = 0; k < a.cells.length; k += 2) {
      const t = parts[a.cells[k]].t, c = a.cells[k + 1];
      counter.addEncoded(t.sets, t.setAt[c], t.setAt[c + 1]);
    }
    const series: SeriesGroup["series"] = {};
    for (const [metric, sr] of a.series) series[metric] = lazyCounts(sr.rows, () => countsOf(parts, sr.refs));
    return { value: a.value, rows: a.rows, visitors: counter.count, series };
  };
  return {
    total: out(all),
    groups: o.by ? [...groups.values()].map(out) : [],
    relative_error: approximate ? RELATIVE_ERROR : 0,
  };
}

/** A series whose counts are merged when first read (a tool shows the percentiles of a few groups only). */
function lazyCounts(rows: number, make: () => NumberRuns): { rows: number; counts: NumberRuns } {
  const series = {
    rows,
    get counts(): NumberRuns {
      const counts = make();
      Object.defineProperty(series, "counts", { value: counts, enumerable: true });
      return counts;
    },
  };
  return series;
}

/** [number, how often] ascending, over the series refs (table index, series) given. */
function countsOf(parts: TableTaken[], refs: number[]): NumberRuns {
  const buckets = new Map<number, number>(), values = new Map<number, number>();
  for (let r = 0; r < refs.length; r += 2) {
    const t = parts[refs[r]].t, k = refs[r + 1];
    const into = t.exact ? values : buckets;
    for (let e = t.at[k]; e < t.at[k + 1]; e++) into.set(t.key[e], (into.get(t.key[e]) ?? 0) + t.count[e]);
  }
  for (const [id, n] of buckets) {
    const v = bucketValue(id);
    values.set(v, (values.get(v) ?? 0) + n);
  }
  return [...values].sort((a, b) => a[0] - b[0]);
}
