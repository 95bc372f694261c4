/**
 * A batch's Web Vitals table: its `$web_vitals` rows counted per cell (UTC hour of receive time, touchpoint,
 * traffic kind, page, device type) with the cell's rows and its people's visitor numbers (an exact set), and
 * per cell and metric (`prop:metric`) its rows and how often each value (`prop:value`, JSON numbers only)
 * occurs: by histogram bucket (buckets.ts) in a part's stored table, by exact value in a table built at
 * question time from the raw tail or a part without a table. A period's figures are sums and set unions over
 * its hours, as the rollups' are (lib/query/rollup/build.ts): exact counts and visitors, percentiles within
 * 1% of the stored values'. Built per part, so a late arrival's part brings its own table.
 *
 * Each series also keeps its reporters: the smallest 5 (`REPORTERS_COUNTED`) distinct visitor numbers of the
 * people whose values count. Over a period the union of such sets has fewer than 5 members exactly when
 * the union of the full sets has: a set cut to 5 has 5, and a set of fewer is whole. So whether a metric was
 * reported by 1 to 4 people (its figures withheld) is exact over any hours, at 5 numbers a series at most.
 */
import type { Batch, NumCol } from "../../parts/columns.ts";
import { encodeSet } from "../../parts/visitor_set.ts";
import { eventView, numericProp, type View, type Viewable } from "../columns/views.ts";
import { bucketOf } from "./buckets.ts";
import { inRange, VITAL_RANGES } from "../../schemas/capture_ranges.ts";
import { REPORTERS_COUNTED } from "../aggregate/value_series.ts";

export const HOUR_MS = 3_600_000;
export const VITALS_EVENT = "$web_vitals";

export type Narrow = Uint8Array | Uint16Array | Uint32Array;

/**
 * In memory every code and count is a Uint32Array (and keys one type per kind of table): a merge walks the
 * same element types in every table (narrow types per table made its loads polymorphic, 5x slower); the
 * stored form narrows them (store.ts).
 */
export interface VitalsTable {
  /** true: `key` holds the values themselves (question time); false: histogram bucket ids (stored) */
  exact: boolean;
  tps: (string | null)[];
  traffics: (string | null)[];
  pages: (string | null)[];
  devices: (string | null)[];
  metrics: (string | null)[];
  /** each hour with rows: its number and the receive-time range of its rows */
  hours: { hour: number; min: number; max: number }[];
  /** cells, ordered by hour: index into `hours`, and codes into the value lists above */
  cHour: Uint32Array;
  cTp: Uint32Array;
  cTraffic: Uint32Array;
  cPage: Uint32Array;
  cDevice: Uint32Array;
  cRows: Uint32Array;
  /** the people (traffic "human") of cell c: sets[setAt[c], setAt[c + 1]) (lib/parts/visitor_set.ts) */
  setAt: Uint32Array;
  sets: Uint8Array;
  /** series (cell × metric), ordered by cell: its cell, metric code, rows, and entries [at[s], at[s + 1]) */
  sCell: Uint32Array;
  sMetric: Uint32Array;
  sRows: Uint32Array;
  at: Uint32Array;
  /**
   * each series' reporters (people whose values count), at most REPORTERS_COUNTED, the smallest distinct
   * visitor numbers ascending: reps[repAt[s], repAt[s + 1])
   */
  repAt: Uint32Array;
  reps: Uint32Array;
  /** entries: a bucket id (Int32Array) or a value (Float64Array), and how often it occurs */
  key: Int32Array | Float64Array;
  count: Uint32Array;
}

export function narrow(xs: ArrayLike<number>): Narrow {
  let max = 0;
  for (let i = 0; i < xs.length; i++) if (xs[i] > max) max = xs[i];
  return max < 256 ? Uint8Array.from(xs) : max < 65536 ? Uint16Array.from(xs) : Uint32Array.from(xs);
}

interface Cell {
  hour: number;
  tp: number;
  traffic: number;
  page: number;
  device: number;
  rows: number;
  visitors: number[];
  /** metric code → (key → count), rows and reporters (the smallest distinct, ascending) per metric code */
  series: Map<number, { rows: number; counts: Map<number, number>; reps: number[] }>;
}

/** Adds a visitor number to the smallest REPORTERS_COUNTED distinct ones (ascending). */
export function keepReporter(reps: number[], v: number): void {
  const n = reps.length;
  if (n === REPORTERS_COUNTED && v >= reps[n - 1]) return;
  let i = n;
  while (i > 0 && reps[i - 1] > v) i--;
  if (i > 0 && reps[i - 1] === v) return;
  reps.splice(i, 0, v);
  if (reps.length > REPORTERS_COUNTED) reps.pop();
}

/**
 * The table of a batch's `$web_vitals` rows; `visitorOf(i)` is row i's dense visitor number (asked for
 * people's rows only), `keep(i)` leaves rows out (a question's period for the raw tail), `exact` keeps values
 * instead of buckets, `whole` merges the hours (one "hour" 0 spanning all rows: what a question that takes
 * every hour of the part reads; 5x fewer cells and series at 10M events).
 */
export function buildVitals(
  b: Batch,
  visitorOf: (row: number) => number,
  o: { exact?: boolean; keep?: (row: number) => boolean; whole?: boolean } = {},
): VitalsTable {
  const exact = o.exact ?? false;
  const v: Viewable = { b, n: b.n, views: new Map() };
  const t = b.n ? (b.cols.t as NumCol).values : new Float64Array(0);
  const type = eventView(v, "event_type");
  const vitalsCode = type.values.indexOf(VITALS_EVENT);
  const lists = {
    tps: coder(eventView(v, "touchpoint")),
    traffics: coder(eventView(v, "traffic")),
    pages: coder(eventView(v, "page")),
    devices: coder(eventView(v, "device_type")),
    metrics: coder(eventView(v, "prop:metric")),
  };
  const value = numericProp(v, "value");
  const valueCoded = value.codes.length > 0;
  const hours = new Map<number, { hour: number; min: number; max: number }>();
  const cells = new Map<string, Cell>();
  for (let i = 0; vitalsCode > 0 && i < b.n; i++) {
    if (type.codes[i] !== vitalsCode || (o.keep && !o.keep(i))) continue;
    const hour = o.whole ? 0 : Math.floor(t[i] / HOUR_MS);
    const h = hours.get(hour);
    if (!h) hours.set(hour, { hour, min: t[i], max: t[i] });
    else {
      if (t[i] < h.min) h.min = t[i];
      if (t[i] > h.max) h.max = t[i];
    }
    const tp = lists.tps.at(i), traffic = lists.traffics.at(i);
    const page = lists.pages.at(i), device = lists.devices.at(i), metric = lists.metrics.at(i);
    const k = `${hour},${tp},${traffic},${page},${device}`;
    let c = cells.get(k);
    if (!c) cells.set(k, c = { hour, tp, traffic, page, device, rows: 0, visitors: [], series: new Map() });
    c.rows++;
    const person = lists.traffics.values[traffic] === "human";
    const visitor = person ? visitorOf(i) : 0;
    if (person) c.visitors.push(visitor);
    let s = c.series.get(metric);
    if (!s) c.series.set(metric, s = { rows: 0, counts: new Map(), reps: [] });
    s.rows++;
    const x = value.nums[valueCoded ? value.codes[i] : 0];
    // a value outside its metric's range (stored before ingest refused it) counts as no value
    const name = lists.metrics.values[metric];
    const range = name && Object.hasOwn(VITAL_RANGES, name) ? VITAL_RANGES[name] : undefined;
    if (x === x && (!range || inRange(range, x))) {
      const key = exact ? x : bucketOf(x);
      s.counts.set(key, (s.counts.get(key) ?? 0) + 1);
      if (person) keepReporter(s.reps, visitor);
    }
  }
  const hourList = [...hours.values()].sort((a, b) => a.hour - b.hour);
  const hourIndex = new Map(hourList.map((h, k) => [h.hour, k]));
  const ordered = [...cells.values()].sort((a, b) =>
    a.hour - b.hour || a.tp - b.tp || a.traffic - b.traffic || a.page - b.page || a.device - b.device
  );
  const sets: Uint8Array[] = [], setAt = new Uint32Array(ordered.length + 1);
  const sCell: number[] = [], sMetric: number[] = [], sRows: number[] = [], at: number[] = [0];
  const keys: number[] = [], counts: number[] = [];
  const repAt: number[] = [0], reps: number[] = [];
  let setBytes = 0;
  ordered.forEach((c, ci) => {
    setAt[ci] = setBytes;
    const set = encodeSet(c.visitors);
    sets.push(set);
    setBytes += set.length;
    for (const [metric, s] of [...c.series].sort((a, b) => a[0] - b[0])) {
      sCell.push(ci);
      sMetric.push(metric);
      sRows.push(s.rows);
      for (const [key, n] of [...s.counts].sort((a, b) => a[0] - b[0])) {
        keys.push(key);
        counts.push(n);
      }
      at.push(keys.length);
      reps.push(...s.reps);
      repAt.push(reps.length);
    }
  });
  setAt[ordered.length] = setBytes;
  const setBuf = new Uint8Array(setBytes);
  let o2 = 0;
  for (const s of sets) {
    setBuf.set(s, o2);
    o2 += s.length;
  }
  return {
    exact,
    tps: lists.tps.values,
    traffics: lists.traffics.values,
    pages: lists.pages.values,
    devices: lists.devices.values,
    metrics: lists.metrics.values,
    hours: hourList,
    cHour: Uint32Array.from(ordered, (c) => hourIndex.get(c.hour)!),
    cTp: Uint32Array.from(ordered, (c) => c.tp),
    cTraffic: Uint32Array.from(ordered, (c) => c.traffic),
    cPage: Uint32Array.from(ordered, (c) => c.page),
    cDevice: Uint32Array.from(ordered, (c) => c.device),
    cRows: Uint32Array.from(ordered.map((c) => c.rows)),
    setAt,
    sets: setBuf,
    sCell: Uint32Array.from(sCell),
    sMetric: Uint32Array.from(sMetric),
    sRows: Uint32Array.from(sRows),
    at: Uint32Array.from(at),
    repAt: Uint32Array.from(repAt),
    reps: Uint32Array.from(reps),
    key: exact ? Float64Array.from(keys) : Int32Array.from(keys),
    count: Uint32Array.from(counts),
  };
}

/** A view's values numbered in the table's own list (code 0 is null), only those its rows use. */
function coder(view: View) {
  const values: (string | null)[] = [null];
  const map = new Int32Array(view.values.length).fill(-1);
  map[0] = 0;
  return {
    values,
    at(i: number): number {
      const k = view.codes.length ? view.codes[i] : 0;
      if (map[k] < 0) map[k] = view.values[k] === null ? 0 : values.push(view.values[k]) - 1;
      return map[k];
    },
  };
}

/** The decoded bytes of a table (what the cache weighs it at). */
export function vitalsBytes(t: VitalsTable): number {
  let bytes = t.sets.byteLength + t.reps.byteLength + t.repAt.byteLength + t.key.byteLength +
    t.count.byteLength + t.at.byteLength +
    t.sCell.byteLength + t.sMetric.byteLength + t.sRows.byteLength + t.setAt.byteLength + t.cRows.byteLength +
    t.cHour.byteLength + t.cTp.byteLength + t.cTraffic.byteLength + t.cPage.byteLength +
    t.cDevice.byteLength +
    40 * t.hours.length;
  for (const list of [t.tps, t.traffics, t.pages, t.devices, t.metrics]) {
    for (const v of list) bytes += 40 + 2 * (v?.length ?? 0);
  }
  return bytes;
}
