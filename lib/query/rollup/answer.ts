/**
 * Aggregate questions answered from hourly rollups (build.ts) instead of scanning events: the cost grows
 * with hours × values asked about (plus the visitor sets' sizes), not with the events. A question qualifies
 * when everything it asks is in the rollups (`rollupBlocker` says why not otherwise: then the scan answers):
 * event-level metrics, at most one breakdown field (traffic may come beside it) and filters on that same
 * field (or, without a breakdown, on one field), or session metrics of the period's totals (from the
 * session facts, sessions.ts); no cohort, no goal, a timezone whose offsets are whole hours over the period,
 * and every part's hour either wholly inside the period or wholly outside (else `answerFromRollups` gives
 * null). Exact: sums of counts, distinct visitors as unions of the hours' visitor sets, sessions joined.
 */
import { remember } from "../../lru.ts";
import { DistinctCounter } from "../../parts/visitor_set.ts";
import { bucketer } from "../../time/buckets.ts";
import { zone } from "../../time/zone.ts";
import { sortAndPage } from "../order.ts";
import { matches } from "../scan/filters.ts";
import type {
  AggregateOptions,
  AggregateResult,
  KeyValue,
  Metric,
  MetricValues,
  Row,
  Scope,
} from "../types.ts";
import { attributionBlocker } from "./attribution.ts";
import { HOUR_MS, type Rollup, ROLLUP_FIELDS, TOTAL } from "./build.ts";
import type { RollupHead, RollupParts } from "./pieces.ts";
import type { EntriesExits, SessionTotals } from "./sessions.ts";
import { addRowReporters, keepsReporters } from "./reporters.ts";

/** The period's session figures: its totals, and its sessions per bucket (`bucketOf` numbers an hour's bucket). */
export interface SessionAnswer {
  totals: SessionTotals;
  /** entries and exits per page, when asked for */
  ends: EntriesExits | null;
  perBucket(bucketOf: (hour: number) => number, pageviewsOnly: boolean): Map<number, number>;
}

export const ROLLUP_METRICS: ReadonlySet<Metric> = new Set<Metric>([
  "events",
  "pageviews",
  "visitors",
  "viewers",
  "rage_clicks",
  "engagement_time_s",
  "scroll_depth_percent",
  "reporters",
]);

/** Session metrics: from the session facts, for the period's totals (no breakdown, bucket or filter). */
export const SESSION_METRICS: ReadonlySet<Metric> = new Set<Metric>([
  "sessions",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
  "engaged_visitors",
  "dropped_events",
]);

/** Per page from the session facts' first and last pageviews: by page or for the totals, without filters. */
export const ENDS_METRICS: ReadonlySet<Metric> = new Set<Metric>(["entries", "exits", "exit_rate"]);

/** Whether the scope's one filter keeps page views only (session figures then count sessions with one). */
export function pageviewSessions(s: Scope): boolean {
  const f = s.filters ?? [];
  return f.length === 1 && f[0].field === "event_type" && f[0].op === "eq" && f[0].value === "$pageview";
}

/** Session metrics rollups give per bucket. */
const BUCKETED_SESSION_METRICS: ReadonlySet<Metric> = new Set<Metric>(["sessions", "views_per_session"]);

const FIELD_INDEX = new Map<string, number>(ROLLUP_FIELDS.map((f, i) => [f, i]));

/**
 * Why rollups cannot answer this question (the scan does), or null when they can: from the rows and facts as
 * below (plainBlocker), or else from the facts' attributions (attribution.ts: sessions, visitors and
 * conversions by source, channel, referrer host, UTM fields and entry page).
 */
export function rollupBlocker(s: Scope, o: AggregateOptions): string | null {
  const plain = plainBlocker(s, o);
  if (plain === null || !attributionAsked(s, o)) return plain;
  return null;
}

/** Whether the facts' attributions answer the question (and the rows and facts alone do not). */
export function attributionAsked(s: Scope, o: AggregateOptions): boolean {
  return plainBlocker(s, o) !== null && attributionBlocker(s, o) === null &&
    wholeHourOffsets(s.timezone, s.from, s.to);
}

/** Why the rollups' rows and facts (without attributions) cannot answer this question, or null when they can. */
export function plainBlocker(s: Scope, o: AggregateOptions): string | null {
  if (s.cohort) return "a cohort";
  if (o.goal) return "a conversion goal";
  const metric = o.metrics.find((m) =>
    !ROLLUP_METRICS.has(m) && !SESSION_METRICS.has(m) && !ENDS_METRICS.has(m)
  );
  if (metric) return `the metric ${metric}`;
  const end = o.metrics.find((m) => ENDS_METRICS.has(m));
  if (
    end &&
    (s.filters?.length || o.bucket ||
      (o.breakdown?.length && (o.breakdown.length > 1 || o.breakdown[0] !== "page")))
  ) return `the metric ${end} with a filter, bucket or breakdown other than the page`;
  const perSession = o.metrics.find((m) => SESSION_METRICS.has(m));
  // sessions with a pageview (a trend of page views): the joined sessions with one in scope
  const pvOnly = pageviewSessions(s) &&
    o.metrics.every((m) => !SESSION_METRICS.has(m) || BUCKETED_SESSION_METRICS.has(m));
  if (perSession && (o.breakdown?.length || (s.filters?.length && !pvOnly))) {
    return `the metric ${perSession} with a breakdown or filter`;
  }
  // a bucket's sessions are those with an event in it (counted from the joined facts); their other figures
  // (bounces, durations) are over the whole period's events and need the scan
  const notPerBucket = o.metrics.find((m) => SESSION_METRICS.has(m) && !BUCKETED_SESSION_METRICS.has(m));
  if (o.bucket && notPerBucket) return `the metric ${notPerBucket} with a bucket`;
  // traffic is a dimension of every rollup row: it may come beside one field
  const by = (o.breakdown ?? []).filter((f) => f !== "traffic");
  // only the page and totals rows keep their reporters (reporters.ts)
  if (
    o.metrics.includes("reporters") &&
    [...by, ...(s.filters ?? []).map((f) => f.field)].some((f) => !keepsReporters(FIELD_INDEX.get(f) ?? -1))
  ) return "the metric reporters with a breakdown or filter other than the page";
  if (by.length > 1) return "a breakdown by several fields";
  if (by.length && !FIELD_INDEX.has(by[0])) return `a breakdown by ${by[0]}`;
  const filtered = new Set((s.filters ?? []).map((f) => f.field));
  if (filtered.size > 1) return "filters on several fields";
  const [f] = filtered;
  if (f !== undefined && !FIELD_INDEX.has(f)) return `a filter on ${f}`;
  if (f !== undefined && by.length && f !== by[0]) return "a filter on another field than the breakdown";
  if (!wholeHourOffsets(s.timezone, s.from, s.to)) return "a timezone offset that is not whole hours";
  return null;
}

/** Whether the zone's offset is a whole number of hours all over [from, to) (checked each day and at the ends). */
export function wholeHourOffsets(tz: string, from: number, to: number): boolean {
  const z = zone(tz);
  const whole = (ms: number) => z.offsetMs(ms) % HOUR_MS === 0;
  if (!whole(from) || !whole(Math.max(from, to - 1))) return false;
  for (let t = from; t < to; t += 6 * HOUR_MS) if (!whole(t)) return false;
  return true;
}

interface Group {
  key: Record<string, KeyValue>;
  events: number;
  pageviews: number;
  rage: number;
  engN: number;
  engSum: number;
  scrollN: number;
  scrollSum: number;
  /** up to 5 of the group's reporters (reporters.ts) */
  rep: number[];
  /** the bucket's number (0 without a bucket) */
  bucket: number;
  /** rows contributing: rollup index, row index */
  refs: number[];
}

/** Which pieces of each part's rollup a question reads (pieces.ts): fields' rows, their sets, session facts. */
export interface PiecesAsked {
  fields: number[];
  /** the fields whose rows' visitor sets are read */
  sets: number[];
  facts: boolean;
  ends: boolean;
}

/** The field whose rows give a question's groups, and the one whose rows give its totals. */
export function fieldsOf(s: Scope, o: AggregateOptions): { rowField: number; totalField: number } {
  const filters = s.filters ?? [];
  const name = o.breakdown?.find((f) => f !== "traffic") ?? filters[0]?.field;
  const rowField = name === undefined ? TOTAL : FIELD_INDEX.get(name)!;
  // totals without filters come from the hours' totals rows; else from the filtered field's rows
  return { rowField, totalField: filters.length ? rowField : TOTAL };
}

/** The pieces a question (that rollups can answer) reads. */
export function piecesAsked(s: Scope, o: AggregateOptions): PiecesAsked {
  const { rowField, totalField } = fieldsOf(s, o);
  const ends = o.metrics.some((m) => ENDS_METRICS.has(m));
  return {
    fields: rowField === totalField ? [rowField] : [rowField, totalField],
    sets: o.metrics.some((m) => m === "visitors" || m === "viewers")
      ? (rowField === totalField ? [rowField] : [rowField, totalField])
      : [],
    facts: ends || o.metrics.some((m) => SESSION_METRICS.has(m)),
    ends,
  };
}

/** Whether the period's ends cut this hour of a part: it has rows inside the period and outside it. */
export const cutsHour = (h: { min: number; max: number }, s: Scope): boolean =>
  !(h.min >= s.from && h.max < s.to) && !(h.max < s.from || h.min >= s.to);

/**
 * Each part's hours inside the period, or null when an hour of a part straddles the period's ends (the scan
 * answers). With `cutRowsRead`, such an hour is left out instead: its rows in the period were read from the
 * part and built with the raw tail's (RollupSource.inPeriod).
 */
export function hoursInside(parts: RollupHead[], s: Scope, cutRowsRead = false): Set<number>[] | null {
  const inside: Set<number>[] = [];
  for (const r of parts) {
    const got = partHoursInside(r.hours, s);
    if (got.cut && !cutRowsRead) return null;
    inside.push(got.inside);
  }
  return inside;
}

/**
 * A part's hours inside [from, to) and whether the period cuts one, kept per hours list (a decoded entry's,
 * the same object every ask while kept) and period: a warm question looked at every hour of every part four
 * times (214 parts at 10M events: ~1.2 ms and a set per part each ask). The sets are shared: read only.
 */
function partHoursInside(hours: RollupHead["hours"], s: Scope): { inside: Set<number>; cut: boolean } {
  let byPeriod = insideMemo.get(hours);
  if (!byPeriod) insideMemo.set(hours, byPeriod = new Map());
  const key = `${s.from}|${s.to}`;
  let got = byPeriod.get(key);
  if (!got) {
    got = { inside: new Set<number>(), cut: false };
    for (const h of hours) {
      if (h.min >= s.from && h.max < s.to) got.inside.add(h.hour);
      else if (cutsHour(h, s)) got.cut = true;
    }
    // (a few periods a part: the current and previous windows of the tools asked, each moving with now)
    remember(byPeriod, key, got, 8);
  }
  return got;
}
const insideMemo = new WeakMap<RollupHead["hours"], Map<string, { inside: Set<number>; cut: boolean }>>();

/**
 * The answer from the parts' rollups (and the raw tail's) with the pieces `piecesAsked` names loaded; `inside`
 * from `hoursInside`; `sessions` the period's session totals when the question asks session metrics.
 * `visitorSpace` is the count of visitor numbers (a bound for the marks). Visitor counts are computed when a
 * row's figure is first read (rows sorted by pageviews pay only for the rows shown), exactly.
 */
/**
 * Visitors (or viewers) of a value of field f over the period, kept per period (unions.ts), or null when the
 * rows' sets are to be unioned as asked.
 */
export type KnownVisitors = (
  f: number,
  viewers: boolean,
  /** a trend's buckets: the values are then bucket labels (as strings) */
  bucket?: AggregateOptions["bucket"],
  /** with buckets: only rows of this value of f count (a trend of one event type) */
  only?: string,
) => ((value: string | null) => number) | null;

/**
 * The value a question's one filter keeps when that filter is `eq` on a field and there is no breakdown (a
 * trend or total of one event type): the field's kept unions by value (and by bucket of that value) serve it.
 */
export function onlyValue(s: Scope, o: AggregateOptions): string | undefined {
  const f = s.filters ?? [];
  if (f.length !== 1 || o.breakdown?.length || f[0].op !== "eq" || typeof f[0].value !== "string") {
    return undefined;
  }
  return f[0].value;
}

/** Whether a question's visitor counts may come from kept unions (`byRows`: its rows', else its totals'). */
export function keptUnionsFit(
  s: Scope,
  o: AggregateOptions,
): { byRows: boolean; totals: boolean; byBucket: boolean } {
  const by = o.breakdown ?? [];
  const plain = !o.bucket && !by.includes("traffic") &&
    o.metrics.some((m) => m === "visitors" || m === "viewers");
  const sortBy = o.sort?.by ?? o.metrics[0];
  return {
    // a list sorted by visitors reads every row's union; else only the rows shown pay theirs
    byRows: plain && by.length === 1 && (sortBy === "visitors" || sortBy === "viewers"),
    totals: plain && (!(s.filters ?? []).length || onlyValue(s, o) !== undefined),
    // a trend of visitors without a breakdown, unfiltered or of one value: each bucket's union kept (unions.ts)
    byBucket: o.bucket !== undefined && !by.length &&
      (!(s.filters ?? []).length || onlyValue(s, o) !== undefined) &&
      o.metrics.some((m) => m === "visitors" || m === "viewers"),
  };
}

export function answerFromRollups(
  parts: RollupParts[],
  inside: Set<number>[],
  s: Scope,
  o: AggregateOptions,
  visitorSpace: number,
  sessions: SessionAnswer | null,
  known: KnownVisitors | null = null,
): AggregateResult {
  const byTraffic = o.breakdown?.includes("traffic") ?? false;
  const by = o.breakdown?.find((f) => f !== "traffic");
  const filters = s.filters ?? [];
  const traffic = new Set<string>(s.traffic ?? ["human"]);
  const bucketOf = o.bucket ? bucketer(o.bucket, s.timezone) : null;
  // groups by number: a value's number (the same string in every rollup) × the bucket's number
  const bucketNumbers = new Map<number, number>(), bucketKeys: KeyValue[] = [];
  /** An hour's bucket number (its key's place in bucketKeys), computed once per hour. */
  const bucketOfHour = (hour: number): number => {
    let b = bucketNumbers.get(hour);
    if (b === undefined) {
      const key = bucketOf!(hour * HOUR_MS);
      b = bucketKeys.indexOf(key);
      if (b < 0) b = bucketKeys.push(key) - 1;
      bucketNumbers.set(hour, b);
    }
    return b;
  };
  const valueIds = new Map<string | null, number>();
  const groups = new Map<number, Group>();
  const totals = newGroup({});
  const { rowField, totalField } = fieldsOf(s, o);
  const grouped = by !== undefined || bucketOf !== null || byTraffic;
  const trafficIds = new Map<string | null, number>();
  // the pieces read, in the order groups refer to them
  const pieces: Rollup[] = [];

  const fit = keptUnionsFit(s, o);
  const only = onlyValue(s, o);
  const rowsKnown = (viewers: boolean) =>
    known && fit.byRows
      ? known(rowField, viewers)
      : known && fit.byBucket
      ? known(rowField, viewers, o.bucket, only)
      : null;
  // (a trend's totals too: the period's visitors, or those of the one value its filter keeps)
  const totalsKnown = (viewers: boolean) =>
    known && (fit.totals || fit.byBucket) ? known(only === undefined ? TOTAL : rowField, viewers) : null;
  // Rows name their visitor sets (`refs`) for counts the kept unions do not give. A trend's buckets and totals,
  // or the totals alone of a question without groups, all read: asked now, and when every one is kept, no row
  // is named (a warm trend at 10M events named 42,892 hourly rows' sets, made and thrown away each ask).
  const kinds = [false, true].filter((v) => o.metrics.includes(v ? "viewers" : "visitors"));
  const unionsGiveAll = known !== null && kinds.length > 0 &&
    ((fit.byBucket && kinds.every((v) => rowsKnown(v) !== null && totalsKnown(v) !== null)) ||
      (!grouped && fit.totals && kinds.every((v) => totalsKnown(v) !== null)));
  const named = kinds.length > 0 && !unionsGiveAll;

  parts.forEach((part, ri) => {
    const hours = inside[ri];
    const tpOk = part.tps.map((tp) => !s.touchpoint || tp === s.touchpoint);
    const trOk = part.traffics.map((t) => t !== null && traffic.has(t));
    const trafficId = part.traffics.map((t) => {
      let id = trafficIds.get(t);
      if (id === undefined) trafficIds.set(t, id = trafficIds.size);
      return id;
    });
    const visitPiece = (f: number) => {
      const r = part.field(f);
      const pi = pieces.push(r) - 1;
      const valueOk = filters.length ? r.values.map((v) => filters.every((x) => matches(v, x))) : null;
      // this piece's value code → the value's number (-1: not seen yet)
      const valueId = by ? new Int32Array(r.values.length).fill(-1) : null;
      for (const i of rowsOfField(r, f)) {
        if (!tpOk[r.tp[i]] || !trOk[r.traffic[i]] || !hours.has(r.hour[i])) continue;
        if (valueOk && f !== TOTAL && !valueOk[r.value[i]]) continue;
        if (f === totalField) add(totals, r, pi, i, named);
        if (f !== rowField || !grouped) continue;
        const bucket = bucketOf ? bucketOfHour(r.hour[i]) : 0;
        // the value is part of the group only when it is the breakdown (a filtered field without a breakdown
        // only chooses rows: its values share their bucket's group)
        let value = 0;
        if (valueId) {
          const code = r.value[i];
          value = valueId[code];
          if (value < 0) {
            const v = r.values[code];
            value = valueIds.get(v) ?? -1;
            if (value < 0) valueIds.set(v, value = valueIds.size);
            valueId[code] = value;
          }
        }
        const id = (value * 64 + (byTraffic ? trafficId[r.traffic[i]] : 0)) * 1_048_576 + bucket;
        let g = groups.get(id);
        if (!g) {
          const key: Record<string, KeyValue> = {};
          for (const f of o.breakdown ?? []) {
            key[f] = f === "traffic" ? r.traffics[r.traffic[i]] : r.values[r.value[i]];
          }
          if (bucketOf) key.bucket = bucketKeys[bucket];
          groups.set(id, g = newGroup(key));
          g.bucket = bucket;
        }
        add(g, r, pi, i, named);
      }
    };
    visitPiece(rowField);
    if (totalField !== rowField) visitPiece(totalField);
  });

  // made when a visitor count is first computed: a warm answer from kept unions and lists computes none, and
  // a mark per visitor number (4 MB at 1M visitors) made for every question was most of its garbage
  let made: DistinctCounter | null = null;
  const counter = () => made ??= new DistinctCounter(visitorSpace);
  const lookup =
    (of: (viewers: boolean) => ((value: string | null) => number) | null, value: string | null) =>
    (viewers: boolean) => {
      const f = of(viewers);
      return f ? f(value) : null;
    };
  // a bucket's sessions: those with a segment in its hours
  const perBucket = sessions && bucketOf ? sessions.perBucket(bucketOfHour, pageviewSessions(s)) : null;
  const rows: Row[] = [...groups.values()].map((g) => {
    const value = by ? g.key[by] as string | null : fit.byBucket ? String(bucketKeys[g.bucket]) : null;
    const metrics = figures(g, pieces, o, counter, lookup(rowsKnown, value));
    if (sessions?.ends) {
      setEnds(metrics, o, g.pageviews, sessions.ends, (m) => m.get(g.key.page as string | null) ?? 0);
    }
    if (perBucket) {
      const n = perBucket.get(g.bucket) ?? 0;
      if (o.metrics.includes("sessions")) metrics.sessions = n;
      if (o.metrics.includes("views_per_session")) metrics.views_per_session = n > 0 ? g.pageviews / n : null;
    }
    return { key: g.key, metrics };
  });
  const whole = figures(totals, pieces, o, counter, lookup(totalsKnown, only ?? null));
  if (sessions) {
    const st = sessions.totals;
    const per = (x: number) => (st.sessions > 0 ? x / st.sessions : null);
    const counted = pageviewSessions(s) ? st.withPageview : st.sessions;
    for (const m of o.metrics) {
      if (m === "sessions") whole[m] = counted;
      else if (m === "views_per_session") whole[m] = counted > 0 ? totals.pageviews / counted : null;
      else if (m === "bounce_rate") whole[m] = per(st.bounces);
      else if (m === "session_duration_s") {
        whole[m] = st.sessions > 0 ? st.durationMs / st.sessions / 1000 : null;
      } else if (m === "engaged_visitors") whole[m] = st.engagedVisitors;
      else if (m === "dropped_events") whole[m] = st.dropped;
    }
  }
  if (sessions?.ends) setEnds(whole, o, totals.pageviews, sessions.ends, sumOf);
  // without a breakdown or bucket, the matching events are one row with an empty key (the totals' figures)
  if (!grouped && totals.events > 0) {
    const row = figures(totals, pieces, o, counter, lookup(totalsKnown, only ?? null));
    for (const m of o.metrics) if (SESSION_METRICS.has(m) || ENDS_METRICS.has(m)) row[m] = whole[m];
    rows.push({ key: {}, metrics: row });
  }
  return { totals: whole, ...sortAndPage(rows, o) };
}

const sumOf = (m: Map<string | null, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Entries, exits and exit rate of a group (`pick`: its count from a page map). */
export function setEnds(
  out: MetricValues,
  o: AggregateOptions,
  pageviews: number,
  ends: EntriesExits,
  pick: (m: Map<string | null, number>) => number,
) {
  for (const m of o.metrics) {
    if (m === "entries") out[m] = pick(ends.entries);
    else if (m === "exits") out[m] = pick(ends.exits);
    else if (m === "exit_rate") out[m] = pageviews > 0 ? pick(ends.exits) / pageviews : null;
  }
}

/** A rollup's rows by field (built once per decoded rollup): a question reads only its field's rows. */
export const rowsOf = (r: Rollup, field: number): Uint32Array => rowsOfField(r, field);
const fieldRows = new WeakMap<Rollup, Map<number, Uint32Array>>();
function rowsOfField(r: Rollup, field: number): Uint32Array {
  let index = fieldRows.get(r);
  if (!index) {
    const lists = new Map<number, number[]>();
    for (let i = 0; i < r.n; i++) {
      let l = lists.get(r.field[i]);
      if (!l) lists.set(r.field[i], l = []);
      l.push(i);
    }
    index = new Map([...lists].map(([f, l]) => [f, Uint32Array.from(l)]));
    fieldRows.set(r, index);
  }
  return index.get(field) ?? new Uint32Array(0);
}

function newGroup(key: Record<string, KeyValue>): Group {
  return {
    key,
    events: 0,
    pageviews: 0,
    rage: 0,
    engN: 0,
    engSum: 0,
    scrollN: 0,
    scrollSum: 0,
    rep: [],
    bucket: 0,
    refs: [],
  };
}

/** Adds row i of piece pi to g; `named`: its visitor sets are named for counting (`refs`). */
function add(g: Group, r: Rollup, pi: number, i: number, named: boolean) {
  g.events += r.events[i];
  g.pageviews += r.pageviews[i];
  g.rage += r.rage[i];
  g.engN += r.engN[i];
  g.engSum += r.engSum[i];
  g.scrollN += r.scrollN[i];
  g.scrollSum += r.scrollSum[i];
  addRowReporters(g.rep, r, i);
  if (named && r.visAt[i + 1] > r.visAt[i]) g.refs.push(pi, i);
}

function figures(
  g: Group,
  pieces: Rollup[],
  o: AggregateOptions,
  counter: () => DistinctCounter,
  known: (viewers: boolean) => number | null = () => null,
): MetricValues {
  const distinct = (viewers: boolean) => () => {
    const k = known(viewers);
    if (k !== null) return k;
    const c = counter();
    c.next();
    for (let k = 0; k < g.refs.length; k += 2) {
      const r = pieces[g.refs[k]], i = g.refs[k + 1];
      if (viewers) c.addEncoded(r.sets, r.viewAt[i], r.visAt[i + 1]);
      else c.addEncoded(r.sets, r.visAt[i], r.viewAt[i]);
    }
    return c.count;
  };
  const out: MetricValues = {};
  for (const m of o.metrics) {
    if (m === "visitors" || m === "viewers") lazy(out, m, distinct(m === "viewers"));
    else {
      out[m] = m === "events"
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
  return out;
}

/**
 * Metric m of `out` computed when first read, then kept as a plain value (an assignment replaces it too):
 * exact visitor counts cost set unions, paid only for the rows a caller looks at.
 */
export function lazy(out: MetricValues, m: Metric, compute: () => number) {
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
