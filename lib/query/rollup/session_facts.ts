/**
 * Session facts of a batch (a part, or the raw tail at question time), kept beside its hourly rollup: one
 * row per session × UTC hour × touchpoint × traffic kind with the figures the session metrics need over
 * those rows: pageviews, first and last receive time, whether something other than a passive event
 * happened, and for people's rows the dropped events inside the segment with its first and last
 * (device time, number), so segments join exactly (`sessions.ts`).
 *
 * Why rows per hour: session figures count a session's events in the period, and a period of whole hours
 * takes exactly the session's hours inside it. Why no session numbers: a session in several parts (it
 * crossed midnight UTC, or events of it arrived late) is joined at read by its visitor number and a 64-bit
 * hash of its id; two sessions of one visitor share a hash with a chance below 2^-60 (the only way two
 * sessions could be taken for one).
 */
import type { Batch, NumCol, StrCol } from "../../parts/columns.ts";
import { eventView, type Viewable } from "../columns/views.ts";
import { sessionGaps } from "../scan/drops.ts";
import { PASSIVE_EVENTS } from "../scan/engaged.ts";
import { runSteps, sliceEnd, type Steps } from "./steps.ts";

export const HOUR = 3_600_000;

export interface SessionFacts {
  n: number;
  /** the session: its visitor's number and two 32-bit hashes of its id */
  vis: Uint32Array;
  h1: Uint32Array;
  h2: Uint32Array;
  hour: Uint32Array;
  /** indices into the rollup's touchpoints and traffic kinds */
  tp: Uint16Array;
  traffic: Uint8Array;
  pv: Uint32Array;
  /** receive times as ms after the hour's start */
  first: Uint32Array;
  last: Uint32Array;
  /** 1: an event that is not passive (engaged.ts) */
  act: Uint8Array;
  /** dropped events inside the segment (people's rows only; 0 else) */
  gaps: Uint32Array;
  /** the segment's first and last row in (device time, number) order */
  dt0: Float64Array;
  seq0: Float64Array;
  dt1: Float64Array;
  seq1: Float64Array;
  /**
   * each people's segment's rows as (device time, number), sorted: row k's at [listAt[k], listAt[k + 1]).
   * Read only for a session whose segments overlap in device time (sessions.ts).
   */
  listAt: Uint32Array;
  listDt: Float64Array;
  listSeq: Float64Array;
  /** each segment's first and last pageview (stored as their own section; null when not read) */
  ends: FactEnds | null;
  /**
   * each row's attribution (attribution.ts): a code into `tuples`, the distinct values of the attribution
   * fields together in the batch, or MULTI_ATTR when the segment's events have several (then `multi` lists
   * them with each one's pageviews). Stored as its own section; absent when not read (or built without it)
   */
  attr?: Uint32Array | null;
  multi?: AttrMulti | null;
  tuples?: (string | null)[][];
  /** each row's first event in (receive time, device time, number) order and its values (its own section) */
  firsts?: FactFirsts | null;
  /**
   * the visitors of the batch's first and last row (where parts of one day are cut, their sessions are the
   * likeliest to be in two parts: spans.ts); absent on facts read from before version 6
   */
  cut?: [number, number];
}

/** A segment with events of several attributions: rows (sorted) with each attribution and its pageviews. */
export interface AttrMulti {
  row: Uint32Array;
  code: Uint32Array;
  pv: Uint32Array;
}

/**
 * The fields a unit is placed under by its first event (explain-a-change: attribution_stream.ts): the
 * channel and source it came from, its page, country, device type and browser.
 */
export const FIRST_FIELDS = ["channel", "source", "page", "country", "device_type", "browser"] as const;

/**
 * Per fact row, its first event in the order the scan takes a unit's first event (receive time: the row's
 * `first`, then device time, then number): that event's device time and number, and per FIRST_FIELDS its
 * value as a code into that field's `values`.
 */
export interface FactFirsts {
  dt: Float64Array;
  seq: Float64Array;
  codes: Uint32Array[];
  values: (string | null)[][];
}

/** A fact row whose events have several attributions (`multi` lists them). */
export const MULTI_ATTR = 0xffffffff;

/**
 * Per fact row, its first and last pageview in (receive time, device time, number) order, as the scan orders a
 * session's events: receive time as ms after the hour's start, and the page as a code into `pages` (0: the
 * segment has no pageview). Joined, they give each session's entry and exit page (sessions.ts).
 */
export interface FactEnds {
  entT: Uint32Array;
  entDt: Float64Array;
  entSeq: Float64Array;
  entPage: Uint32Array;
  extT: Uint32Array;
  extDt: Float64Array;
  extSeq: Float64Array;
  extPage: Uint32Array;
  /** pages[code - 1] */
  pages: (string | null)[];
}

/** The ends' arrays in stored order (widest first). */
export const ENDS_LAYOUT: [keyof Omit<FactEnds, "pages">, new (n: number) => ArrayLike<number>][] = [
  ["entDt", Float64Array],
  ["entSeq", Float64Array],
  ["extDt", Float64Array],
  ["extSeq", Float64Array],
  ["entT", Uint32Array],
  ["entPage", Uint32Array],
  ["extT", Uint32Array],
  ["extPage", Uint32Array],
];

/** Array columns in stored order (widest first, so each starts aligned); the lists are stored after them. */
export const FACT_LAYOUT: [
  keyof Omit<SessionFacts, "n" | "listAt" | "listDt" | "listSeq">,
  new (n: number) => ArrayLike<number>,
][] = [
  ["dt0", Float64Array],
  ["seq0", Float64Array],
  ["dt1", Float64Array],
  ["seq1", Float64Array],
  ["vis", Uint32Array],
  ["h1", Uint32Array],
  ["h2", Uint32Array],
  ["hour", Uint32Array],
  ["pv", Uint32Array],
  ["first", Uint32Array],
  ["last", Uint32Array],
  ["gaps", Uint32Array],
  ["tp", Uint16Array],
  ["traffic", Uint8Array],
  ["act", Uint8Array],
];

/** Two independent 32-bit hashes of a string (FNV-1a, and a multiply-xorshift one). */
export function idHashes(s: string): [number, number] {
  let a = 0x811c9dc5, b = 0x9e3779b9 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  return [a >>> 0, (b ^ (b >>> 16)) >>> 0];
}

interface Seg {
  vis: number;
  h1: number;
  h2: number;
  hour: number;
  tp: number;
  traffic: number;
  pv: number;
  first: number;
  last: number;
  act: number;
  human: boolean;
  attr: number;
  /** pageviews per attribution, once a second one is seen */
  pvOf: Map<number, number> | null;
  dt: number[];
  seq: number[];
  /** rows of the first and last pageview (-1: none) */
  ent: number;
  /** row of the first event */
  fst: number;
  ext: number;
}

/**
 * The facts of batch b. `visitorOf(i)`: row i's visitor number; `tpIndex`/`trafficIndex`: a row's touchpoint
 * and traffic kind as the rollup numbers them.
 */
export function buildSessionFacts(
  b: Batch,
  visitorOf: (row: number) => number,
  tpIndex: (row: number) => number,
  trafficIndex: (row: number) => number,
  attrOf: ((row: number) => number) | null = null,
): SessionFacts {
  return runSteps(sessionFactsSteps(b, visitorOf, tpIndex, trafficIndex, attrOf));
}

/** `buildSessionFacts` pausing every ROWS_A_TURN rows and segments (steps.ts). */
export function* sessionFactsSteps(
  b: Batch,
  visitorOf: (row: number) => number,
  tpIndex: (row: number) => number,
  trafficIndex: (row: number) => number,
  /** a row's attribution code (kept per segment: `attr`, `multi`), or null: one code for all */
  attrOf: ((row: number) => number) | null = null,
): Steps<SessionFacts> {
  const v: Viewable = { b, n: b.n, views: new Map() };
  const t = (b.cols.t as NumCol).values,
    dt = (b.cols.dt as NumCol).values,
    seq = (b.cols.seq as NumCol).values;
  const session = b.cols.session as StrCol;
  const typeView = eventView(v, "event_type"), trView = eventView(v, "traffic");
  const pvCode = typeView.values.indexOf("$pageview");
  const active = Uint8Array.from(typeView.values, (x) => (x !== null && !PASSIVE_EVENTS.has(x) ? 1 : 0));
  const humanCode = trView.values.indexOf("human");
  const rowBefore = (a: number, b: number) =>
    t[a] < t[b] || (t[a] === t[b] && (dt[a] < dt[b] || (dt[a] === dt[b] && seq[a] < seq[b])));
  const pageView = eventView(v, "page");
  const hashes = new Map<number, [number, number]>();
  const segs = new Map<string, Seg>();
  // the row before's segment and what keyed it: rows come by visitor and session, so most rows continue it
  let last: Seg | undefined, lastSc = -1, lastVis = -1, lastHour = -1, lastTp = -1, lastTraffic = -1;
  for (let i = 0; i < b.n; i++) {
    const sc = session.codes[i];
    const vis = visitorOf(i), hour = Math.floor(t[i] / HOUR), tp = tpIndex(i), traffic = trafficIndex(i);
    const attr = attrOf ? attrOf(i) : 0;
    const same = last !== undefined && sc === lastSc && vis === lastVis && hour === lastHour &&
      tp === lastTp &&
      traffic === lastTraffic;
    let s = same ? last : segs.get(`${vis}.${sc}.${hour}.${tp}.${traffic}`);
    if (!s) {
      let h = hashes.get(sc);
      if (!h) hashes.set(sc, h = idHashes(sc === 0 ? "" : session.dict[sc - 1]));
      const key = `${vis}.${sc}.${hour}.${tp}.${traffic}`;
      const human = trView.codes.length > 0 && trView.codes[i] === humanCode;
      s = {
        vis,
        h1: h[0],
        h2: h[1],
        hour,
        tp,
        traffic,
        pv: 0,
        first: t[i],
        last: t[i],
        act: 0,
        human,
        attr,
        pvOf: null,
        dt: [],
        seq: [],
        ent: -1,
        ext: -1,
        fst: i,
      };
      segs.set(key, s);
    }
    last = s;
    lastSc = sc;
    lastVis = vis;
    lastHour = hour;
    lastTp = tp;
    lastTraffic = traffic;
    const et = typeView.codes.length ? typeView.codes[i] : 0;
    const isPv = et === pvCode && pvCode > 0;
    if (attr !== s.attr && !s.pvOf) s.pvOf = new Map([[s.attr, s.pv]]);
    if (s.pvOf) s.pvOf.set(attr, (s.pvOf.get(attr) ?? 0) + (isPv ? 1 : 0));
    if (isPv) {
      s.pv++;
      // first: strictly earlier wins (the earlier row among equals); last: a later or equal row wins
      if (s.ent < 0 || rowBefore(i, s.ent)) s.ent = i;
      if (s.ext < 0 || !rowBefore(i, s.ext)) s.ext = i;
    }
    if (rowBefore(i, s.fst)) s.fst = i;
    if (active[et]) s.act = 1;
    if (t[i] < s.first) s.first = t[i];
    if (t[i] > s.last) s.last = t[i];
    if (s.human) {
      s.dt.push(dt[i]);
      s.seq.push(seq[i]);
    }
    if (sliceEnd(i)) yield;
  }
  const n = segs.size;
  const f = Object.fromEntries(FACT_LAYOUT.map(([name, T]) => [name, new T(n)])) as unknown as SessionFacts;
  f.n = n;
  f.listAt = new Uint32Array(n + 1);
  const ends = Object.fromEntries(ENDS_LAYOUT.map(([name, T]) => [name, new T(n)])) as unknown as FactEnds;
  const pageCodes = new Map<string | null, number>();
  ends.pages = [];
  const pageCode = (row: number) => {
    const p = pageView.codes.length ? pageView.values[pageView.codes[row]] : null;
    let c = pageCodes.get(p);
    if (c === undefined) pageCodes.set(p, c = ends.pages.push(p));
    return c;
  };
  f.ends = ends;
  const firstViews = FIRST_FIELDS.map((field) => eventView(v, field));
  const firsts: FactFirsts = {
    dt: new Float64Array(n),
    seq: new Float64Array(n),
    codes: FIRST_FIELDS.map(() => new Uint32Array(n)),
    values: FIRST_FIELDS.map(() => []),
  };
  // each field's values as the first rows use them (a part's pages are many; its first rows' fewer)
  const firstIds = FIRST_FIELDS.map(() => new Map<string | null, number>());
  f.firsts = firsts;
  f.attr = new Uint32Array(n);
  const mRow: number[] = [], mCode: number[] = [], mPv: number[] = [];
  if (b.n) f.cut = [visitorOf(0), visitorOf(b.n - 1)];
  const listDt: number[] = [], listSeq: number[] = [];
  let k = 0;
  for (const s of segs.values()) {
    f.vis[k] = s.vis;
    f.h1[k] = s.h1;
    f.h2[k] = s.h2;
    f.hour[k] = s.hour;
    f.tp[k] = s.tp;
    f.traffic[k] = s.traffic;
    f.pv[k] = s.pv;
    f.first[k] = s.first - s.hour * HOUR;
    f.last[k] = s.last - s.hour * HOUR;
    f.act[k] = s.act;
    f.attr[k] = s.pvOf ? MULTI_ATTR : s.attr;
    if (s.pvOf) {
      for (const [code, pv] of s.pvOf) {
        mRow.push(k);
        mCode.push(code);
        mPv.push(pv);
      }
    }
    firsts.dt[k] = dt[s.fst];
    firsts.seq[k] = seq[s.fst];
    for (let x = 0; x < firstViews.length; x++) {
      const view = firstViews[x], value = view.codes.length ? view.values[view.codes[s.fst]] ?? null : null;
      let c = firstIds[x].get(value);
      if (c === undefined) firstIds[x].set(value, c = firsts.values[x].push(value) - 1);
      firsts.codes[x][k] = c;
    }
    if (s.ent >= 0) {
      ends.entT[k] = t[s.ent] - s.hour * HOUR;
      ends.entDt[k] = dt[s.ent];
      ends.entSeq[k] = seq[s.ent];
      ends.entPage[k] = pageCode(s.ent);
      ends.extT[k] = t[s.ext] - s.hour * HOUR;
      ends.extDt[k] = dt[s.ext];
      ends.extSeq[k] = seq[s.ext];
      ends.extPage[k] = pageCode(s.ext);
    }
    f.listAt[k] = listDt.length;
    if (s.dt.length) {
      f.gaps[k] = sessionGaps(s.dt, s.seq);
      const order = s.dt.map((_, j) => j).sort((a, b) => s.dt[a] - s.dt[b] || s.seq[a] - s.seq[b]);
      for (const j of order) {
        listDt.push(s.dt[j]);
        listSeq.push(s.seq[j]);
      }
      f.dt0[k] = s.dt[order[0]];
      f.seq0[k] = s.seq[order[0]];
      f.dt1[k] = s.dt[order[order.length - 1]];
      f.seq1[k] = s.seq[order[order.length - 1]];
    }
    if (sliceEnd(k)) yield;
    k++;
  }
  f.listAt[n] = listDt.length;
  f.multi = { row: Uint32Array.from(mRow), code: Uint32Array.from(mCode), pv: Uint32Array.from(mPv) };
  f.listDt = Float64Array.from(listDt);
  f.listSeq = Float64Array.from(listSeq);
  return f;
}
