/**
 * Hourly rollups of a batch of events (a part, or the raw tail at question time): per UTC hour of receive
 * time, touchpoint, traffic kind, and value of each breakdown field (plus a row with no field: the hour's
 * totals), the additive figures (events, pageviews, rage clicks, engagement and scroll sums and counts)
 * and, for people, the exact sets of visitors and of viewers (visitors with a page view) as dense visitor
 * numbers, and on the page and totals rows up to 5 of the visitors whose `$pageleave` gave both page-leave
 * figures (reporters.ts: what the small-group rule asks of the means). A period's figures are sums and set
 * unions over its hours; any timezone whose offset is whole hours cuts its days, weeks and months from them
 * exactly. Built per part, so a late arrival's part brings its own rollup and nothing already written
 * changes: exact by construction.
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { encodeSet } from "../../parts/visitor_set.ts";
import { eventView, numericProp, type Viewable } from "../columns/views.ts";
import type { EventField } from "../types.ts";
import type { Turn } from "../../turns.ts";
import { type SessionFacts, sessionFactsSteps } from "./session_facts.ts";
import { runSteps, runTurning, sliceEnd, type Steps } from "./steps.ts";
import { addReporter, keepsReporters, packReporters } from "./reporters.ts";

/** The fields rollups break down by (event-level fields; entry/exit pages and properties are not here). */
export const ROLLUP_FIELDS = [
  "page",
  "host",
  "country",
  "city",
  "device_type",
  "browser",
  "os",
  "platform",
  "source",
  "channel",
  "referrer_host",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "event_type",
  "element",
  "crawler",
  "crawler_category",
] as const satisfies readonly EventField[];

/**
 * The fields of an event's attribution (where its visit came from): the session facts keep each row's values
 * of them together (attribution.ts), so sessions and visitors by one or two of them are counted exactly.
 */
export const ATTR_FIELDS = [
  "source",
  "channel",
  "referrer_host",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
] as const satisfies readonly (typeof ROLLUP_FIELDS)[number][];

/** The field index of an hour's totals row. */
export const TOTAL = 255;
export const HOUR_MS = 3_600_000;

export interface Rollup {
  n: number;
  hour: Uint32Array;
  tp: Uint16Array;
  traffic: Uint8Array;
  /** index into ROLLUP_FIELDS, or TOTAL */
  field: Uint8Array;
  /** code into values (0 = null) */
  value: Uint32Array;
  events: Uint32Array;
  pageviews: Uint32Array;
  rage: Uint32Array;
  engN: Uint32Array;
  scrollN: Uint32Array;
  engSum: Float64Array;
  scrollSum: Float64Array;
  /** visitors of row i: sets[visAt[i], viewAt[i]); its viewers: sets[viewAt[i], visAt[i + 1]) */
  visAt: Uint32Array;
  viewAt: Uint32Array;
  sets: Uint8Array;
  /**
   * row i's kept reporters (reporters.ts: at most 5 visitors whose human `$pageleave` gave both engagement time
   * and scroll depth): rep[repAt[i], repAt[i + 1]); both arrays empty when no row of the rollup has any
   */
  repAt: Uint32Array;
  rep: Uint32Array;
  values: (string | null)[];
  tps: (string | null)[];
  traffics: (string | null)[];
  /** each hour with rows: its number and the receive-time range of its rows */
  hours: { hour: number; min: number; max: number }[];
  /** per session × hour × touchpoint × traffic kind: what session metrics need (session_facts.ts) */
  facts: SessionFacts;
}

interface Acc {
  hour: number;
  tp: number;
  traffic: number;
  field: number;
  value: number;
  events: number;
  pageviews: number;
  rage: number;
  engN: number;
  scrollN: number;
  engSum: number;
  scrollSum: number;
  vis: number[];
  view: number[];
  rep: number[];
}

/** The rollup of a batch; `visitorOf(i)` is row i's dense visitor number. */
export function buildRollup(b: Batch, visitorOf: (row: number) => number): Rollup {
  return runSteps(rollupSteps(b, visitorOf));
}

/** `buildRollup`, awaiting `turn` every ROWS_A_TURN rows (a question's raw tail: the loop serves others meanwhile). */
export function buildRollupTurning(
  b: Batch,
  visitorOf: (row: number) => number,
  turn: Turn,
): Promise<Rollup> {
  return runTurning(rollupSteps(b, visitorOf), turn);
}

function* rollupSteps(b: Batch, visitorOf: (row: number) => number): Steps<Rollup> {
  const v: Viewable = { b, n: b.n, views: new Map() };
  const t = (b.cols.t as NumCol).values;
  const tpView = eventView(v, "touchpoint"), trView = eventView(v, "traffic");
  const typeView = eventView(v, "event_type"), rageView = eventView(v, "prop:rage_click");
  const eng = numericProp(v, "engagement_time_ms"), scroll = numericProp(v, "depth_percent");
  const values: (string | null)[] = [null], valueCode = new Map<string, number>();
  const code = (s: string | null) => {
    if (s === null) return 0;
    let c = valueCode.get(s);
    if (c === undefined) valueCode.set(s, c = values.push(s) - 1);
    return c;
  };
  // per field: view code → value code
  const fieldViews = ROLLUP_FIELDS.map((f) => {
    const view = eventView(v, f);
    return { codes: view.codes, table: Uint32Array.from(view.values, code) };
  });
  const at = (view: { codes: ArrayLike<number>; values: (string | null)[] }, i: number) =>
    view.codes.length ? view.values[view.codes[i]] : null;
  // (hour, touchpoint, traffic) → (field, value) → figures
  const groups = new Map<number, Map<number, Acc>>();
  const accs: Acc[] = [];
  const hours = new Map<number, { hour: number; min: number; max: number }>();
  const tps: (string | null)[] = [], trs: (string | null)[] = [];
  const small = (list: (string | null)[], s: string | null) => {
    const i = list.indexOf(s);
    return i >= 0 ? i : list.push(s) - 1;
  };
  const rowTp = new Uint16Array(b.n), rowTr = new Uint8Array(b.n);
  let lastOuter = -1, lastInner: Map<number, Acc> | undefined;
  const lastValue = new Float64Array(ROLLUP_FIELDS.length + 1).fill(-1);
  const lastAcc: (Acc | undefined)[] = new Array(ROLLUP_FIELDS.length + 1).fill(undefined);
  let hour0 = Infinity;
  for (let i = 0; i < b.n; i++) hour0 = Math.min(hour0, Math.floor(t[i] / HOUR_MS));
  for (let i = 0; i < b.n; i++) {
    const hour = Math.floor(t[i] / HOUR_MS);
    const h = hours.get(hour);
    if (!h) hours.set(hour, { hour, min: t[i], max: t[i] });
    else {
      if (t[i] < h.min) h.min = t[i];
      if (t[i] > h.max) h.max = t[i];
    }
    const tp = small(tps, at(tpView, i)), traffic = small(trs, at(trView, i));
    rowTp[i] = tp;
    rowTr[i] = traffic;
    const type = at(typeView, i);
    const human = trs[traffic] === "human";
    const pageview = type === "$pageview", leave = type === "$pageleave";
    const rage = type === "$autocapture" && at(rageView, i) === "true";
    const e = leave ? eng.nums[eng.codes[i] ?? 0] : NaN, s = leave ? scroll.nums[scroll.codes[i] ?? 0] : NaN;
    const visitor = human ? visitorOf(i) : -1;
    // a visitor behind both page-leave means (reporters.ts)
    const reporter = visitor >= 0 && Number.isFinite(e) && Number.isFinite(s) ? visitor : -1;
    const outer = ((hour - hour0) * 65_536 + tp) * 16 + traffic;
    const sameOuter = outer === lastOuter;
    let inner = sameOuter ? lastInner! : groups.get(outer);
    if (!inner) groups.set(outer, inner = new Map());
    lastOuter = outer;
    lastInner = inner;
    for (let f = -1; f < ROLLUP_FIELDS.length; f++) {
      const field = f < 0 ? TOTAL : f;
      const value = f < 0 ? 0 : fieldViews[f].codes.length ? fieldViews[f].table[fieldViews[f].codes[i]] : 0;
      // a row like the row before in group and value adds to the same figures (rows come by visitor and
      // session, so most fields repeat): no map look-up
      let a = sameOuter && lastValue[f + 1] === value ? lastAcc[f + 1] : inner.get(field * 2 ** 24 + value);
      lastValue[f + 1] = value;
      if (!a) {
        a = {
          hour,
          tp,
          traffic,
          field,
          value,
          events: 0,
          pageviews: 0,
          rage: 0,
          engN: 0,
          scrollN: 0,
          engSum: 0,
          scrollSum: 0,
          vis: [],
          view: [],
          rep: [],
        };
        inner.set(field * 2 ** 24 + value, a);
        accs.push(a);
      }
      lastAcc[f + 1] = a;
      a.events++;
      if (pageview) a.pageviews++;
      if (rage) a.rage++;
      if (Number.isFinite(e)) {
        a.engN++;
        a.engSum += e;
      }
      if (Number.isFinite(s)) {
        a.scrollN++;
        a.scrollSum += s;
      }
      if (visitor >= 0) {
        if (a.vis[a.vis.length - 1] !== visitor) a.vis.push(visitor);
        if (pageview && a.view[a.view.length - 1] !== visitor) a.view.push(visitor);
        if (reporter >= 0 && keepsReporters(field)) addReporter(a.rep, reporter);
      }
    }
    if (sliceEnd(i)) yield;
  }
  const { rowAttr, tuples } = attributionsOf(b);
  const facts = yield* sessionFactsSteps(
    b,
    visitorOf,
    (i) => rowTp[i],
    (i) => rowTr[i],
    (i) => rowAttr[i],
  );
  facts.tuples = tuples;
  return yield* pack(accs, values, tps, trs, [...hours.values()].sort((a, b) => a.hour - b.hour), facts);
}

function* pack(
  accs: Acc[],
  values: (string | null)[],
  tps: (string | null)[],
  traffics: (string | null)[],
  hours: Rollup["hours"],
  facts: SessionFacts,
): Steps<Rollup> {
  const n = accs.length;
  const col = <T>(make: new (n: number) => T) => new make(n);
  const r: Rollup = {
    n,
    hour: col(Uint32Array),
    tp: col(Uint16Array),
    traffic: col(Uint8Array),
    field: col(Uint8Array),
    value: col(Uint32Array),
    events: col(Uint32Array),
    pageviews: col(Uint32Array),
    rage: col(Uint32Array),
    engN: col(Uint32Array),
    scrollN: col(Uint32Array),
    engSum: col(Float64Array),
    scrollSum: col(Float64Array),
    visAt: new Uint32Array(n + 1),
    viewAt: new Uint32Array(n + 1),
    sets: new Uint8Array(0),
    ...packReporters(accs.map((a) => a.rep)),
    values,
    tps,
    traffics,
    hours,
    facts,
  };
  const sets: Uint8Array[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const a = accs[i];
    r.hour[i] = a.hour;
    r.tp[i] = a.tp;
    r.traffic[i] = a.traffic;
    r.field[i] = a.field;
    r.value[i] = a.value;
    r.events[i] = a.events;
    r.pageviews[i] = a.pageviews;
    r.rage[i] = a.rage;
    r.engN[i] = a.engN;
    r.scrollN[i] = a.scrollN;
    r.engSum[i] = a.engSum;
    r.scrollSum[i] = a.scrollSum;
    r.visAt[i] = bytes;
    const vis = encodeSet(a.vis);
    sets.push(vis);
    bytes += vis.length;
    r.viewAt[i] = bytes;
    const view = encodeSet(a.view);
    sets.push(view);
    bytes += view.length;
    if (sliceEnd(i)) yield;
  }
  r.visAt[n] = r.viewAt[n] = bytes;
  r.sets = new Uint8Array(bytes);
  let o = 0;
  for (const s of sets) {
    r.sets.set(s, o);
    o += s.length;
  }
  return r;
}

/** Each row's attribution (its values of ATTR_FIELDS together) as a code into the batch's distinct ones. */
export function attributionsOf(b: Batch): { rowAttr: Uint32Array; tuples: (string | null)[][] } {
  const v: Viewable = { b, n: b.n, views: new Map() };
  const views = ATTR_FIELDS.map((f) => eventView(v, f));
  const rowAttr = new Uint32Array(b.n), tupleCode = new Map<string, number>();
  const tuples: (string | null)[][] = [];
  const codes = new Array<number>(views.length);
  for (let i = 0; i < b.n; i++) {
    for (let f = 0; f < views.length; f++) codes[f] = views[f].codes.length ? views[f].codes[i] : -1;
    const key = codes.join(".");
    let c = tupleCode.get(key);
    if (c === undefined) {
      tupleCode.set(key, c = tuples.length);
      tuples.push(views.map((view, f) => (codes[f] < 0 ? null : view.values[codes[f]])));
    }
    rowAttr[i] = c;
  }
  return { rowAttr, tuples };
}

/** Dense visitor numbers of a batch's rows from the numbers of its anonymous ids. */
export function rowVisitors(b: Batch, numbers: Map<string, number>): Uint32Array {
  const anon = b.cols.anon as StrCol;
  const byCode = new Uint32Array(anon.dict.length + 1);
  anon.dict.forEach((id, k) => (byCode[k + 1] = numbers.get(id) ?? 0));
  return Uint32Array.from(anon.codes, (c) => byCode[c]);
}

/** The anonymous ids of a batch (its visitors to number). */
export const batchVisitors = (b: Batch): string[] => (b.cols.anon as StrCol).dict;
