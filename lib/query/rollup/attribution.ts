/**
 * Sessions, visitors and conversions by where visits came from (source, channel, referrer host, UTM fields,
 * one or two of them, and the session's entry page) from the session facts, without events. Each fact row
 * (a session's events in one hour, touchpoint and traffic kind) carries its events' attribution, the values
 * of those fields together (or, when its events had several, each one with its pageviews: session_facts.ts),
 * so a row's attributions are exactly its events' and the scan's groups are unions of rows:
 * - sessions of a group: distinct joined sessions (sessions.ts) with a row of one of the group's attributions;
 * - visitors: distinct visitor numbers of such people's rows;
 * - a filter on an attribution field keeps the rows of the attributions it matches, `event_type = $pageview`
 *   those with a pageview of that attribution;
 * - entry page: the session's first pageview in scope, from the rows' ends joined;
 * - conversions: a group's visitors who sent the goal event in scope (the event type's rows' visitor sets).
 * Exact, as the scan counts them; the cost is the period's fact rows, not its events.
 */
import { matches } from "../scan/filters.ts";
import { sortAndPage } from "../order.ts";
import type {
  AggregateOptions,
  AggregateResult,
  EventField,
  KeyValue,
  Metric,
  Row,
  Scope,
} from "../types.ts";
import { ATTR_FIELDS } from "./build.ts";
import { type AttrMulti, type FactEnds, HOUR, MULTI_ATTR, type SessionFacts } from "./session_facts.ts";
import { hourMask } from "./sessions.ts";

const ATTR_INDEX = new Map<string, number>(ATTR_FIELDS.map((f, i) => [f, i]));
export const ATTRIBUTION_METRICS: ReadonlySet<Metric> = new Set<Metric>([
  "visitors",
  "sessions",
  "conversions",
  "conversion_rate",
]);

/** Whether the filter keeps page views only (rows with a pageview of the attribution). */
const pageviewFilter = (f: { field: string; op: string; value: unknown }) =>
  f.field === "event_type" && f.op === "eq" && f.value === "$pageview";

/**
 * Why the session facts' attributions cannot answer this question, or null when they can (the period's
 * timezone is checked beside: rollupBlocker, answer.ts).
 */
export function attributionBlocker(s: Scope, o: AggregateOptions): string | null {
  if (s.cohort) return "a cohort";
  if (o.bucket) return "a bucket";
  const metric = o.metrics.find((m) => !ATTRIBUTION_METRICS.has(m));
  if (metric) return `the metric ${metric}`;
  const by = o.breakdown ?? [];
  if (by.length > 2) return "a breakdown by more than two fields";
  const field = by.find((f) => !ATTR_INDEX.has(f) && f !== "entry_page");
  if (field) return `a breakdown by ${field}`;
  const filter = (s.filters ?? []).find((f) => !ATTR_INDEX.has(f.field) && !pageviewFilter(f));
  if (filter) return `a filter on ${filter.field}`;
  const traffic = s.traffic ?? ["human"];
  if (o.goal && (o.goal.filters?.length || traffic.length !== 1 || traffic[0] !== "human")) {
    return "a goal with conditions, or beside traffic other than people";
  }
  return null;
}

/** A part's (or the raw tail's) facts with their attributions, and what their indices name. */
export interface AttrUnit {
  facts: SessionFacts;
  traffics: (string | null)[];
  /** each fact row's attribution code, or MULTI_ATTR (then `multi` lists its codes with their pageviews) */
  codes: Uint32Array;
  multi: AttrMulti;
  tuples: (string | null)[][];
  ends: FactEnds | null;
}

/**
 * The fact rows in scope and their sessions, lean: per unit each row's session number (-1: out of scope; 0
 * for all when `sessions` is false: only visitors are counted, no session needs telling apart). Sessions are
 * told by visitor number and both id hashes, as joinSessions (sessions.ts) tells them, holding only those.
 */
export interface AttrJoin {
  /** whether sessions are told apart (else every row in scope has session 0) */
  apart: boolean;
  /** sessions in scope (0 when not told apart) */
  n: number;
  slots: Int32Array[];
  /** each unit's fact rows' hours */
  hours: Uint32Array[];
  /** a bound on the visitor numbers */
  visitors: number;
}

export function attributionJoin(
  units: { facts: SessionFacts; tps: (string | null)[]; traffics: (string | null)[] }[],
  inside: Set<number>[],
  touchpoint: string | null | undefined,
  traffic: Set<string>,
  visitorSpace: number,
  sessions: boolean,
): AttrJoin {
  const rows = units.reduce((n, u) => n + u.facts.n, 0);
  let size = 16;
  while (sessions && size < rows * 2) size *= 2;
  const table = new Int32Array(sessions ? size : 0).fill(-1), mask = size - 1;
  // per session: its key (grown as sessions come)
  let cap = 1024, n = 0;
  let kVis = new Uint32Array(cap), kH1 = new Uint32Array(cap), kH2 = new Uint32Array(cap);
  let visitors = visitorSpace;
  const slots = units.map((u, ri) => {
    const f = u.facts;
    const slot = new Int32Array(f.n).fill(-1);
    const tpOk = Uint8Array.from(u.tps, (tp) => (!touchpoint || tp === touchpoint ? 1 : 0));
    const trOk = Uint8Array.from(u.traffics, (t) => (t !== null && traffic.has(t) ? 1 : 0));
    const { base, inHour } = hourMask(inside[ri]);
    for (let k = 0; k < f.n; k++) {
      const ho = f.hour[k] - base;
      if (!(ho >= 0 && ho < inHour.length && inHour[ho]) || !tpOk[f.tp[k]] || !trOk[f.traffic[k]]) continue;
      const v = f.vis[k];
      if (v >= visitors) visitors = v + 1;
      if (!sessions) {
        slot[k] = 0;
        continue;
      }
      const a = f.h1[k], b = f.h2[k];
      let at = (Math.imul(v, 0x9e3779b1) ^ Math.imul(a, 0x85ebca6b) ^ b) & mask;
      let x = table[at];
      while (x >= 0 && (kH1[x] !== a || kH2[x] !== b || kVis[x] !== v)) {
        at = (at + 1) & mask;
        x = table[at];
      }
      if (x < 0) {
        if (n === cap) {
          cap *= 2;
          const grow = (old: Uint32Array) => {
            const g = new Uint32Array(cap);
            g.set(old);
            return g;
          };
          kVis = grow(kVis);
          kH1 = grow(kH1);
          kH2 = grow(kH2);
        }
        x = n++;
        kVis[x] = v;
        kH1[x] = a;
        kH2[x] = b;
        table[at] = x;
      }
      slot[k] = x;
    }
    return slot;
  });
  return { apart: sessions, n: sessions ? n : 0, slots, hours: units.map((u) => u.facts.hour), visitors };
}

/** Each joined session's entry page as (unit, page code); unit -1: no pageview in scope. */
export function sessionEntries(join: AttrJoin, ends: (FactEnds | null)[]) {
  const { slots } = join, j = join;
  const entT = new Float64Array(j.n).fill(Infinity),
    entDt = new Float64Array(j.n),
    entSeq = new Float64Array(j.n);
  const unit = new Int32Array(j.n).fill(-1), page = new Uint32Array(j.n);
  slots.forEach((slot, ri) => {
    const e = ends[ri];
    if (!e) return;
    const hourOf = join.hours[ri];
    for (let k = 0; k < slot.length; k++) {
      const s = slot[k];
      if (s < 0 || e.entPage[k] === 0) continue;
      const t0 = hourOf[k] * HOUR + e.entT[k];
      // strictly earlier wins, as entriesAndExits (sessions.ts) orders them
      if (
        t0 < entT[s] ||
        (t0 === entT[s] && (e.entDt[k] < entDt[s] || (e.entDt[k] === entDt[s] && e.entSeq[k] < entSeq[s])))
      ) {
        entT[s] = t0;
        entDt[s] = e.entDt[k];
        entSeq[s] = e.entSeq[k];
        unit[s] = ri;
        page[s] = e.entPage[k];
      }
    }
  });
  return { unit, page };
}

/** Room for group numbers in a pair's key (session or visitor × 2^22 + group). */
const GROUPS = 4_194_304;

/**
 * The answer to one question (attributionBlocker null) over a join of the period's sessions (`join`: of
 * `units`, in that order, in scope; told apart when the question asks sessions or entry pages), `entries` when the breakdown has the entry page, and `goal` the visitor
 * numbers with the goal event in scope (null without a goal).
 */
export function answerAttribution(
  units: AttrUnit[],
  join: AttrJoin,
  entries: { unit: Int32Array; page: Uint32Array } | null,
  goal: Uint8Array | null,
  s: Scope,
  o: AggregateOptions,
): AggregateResult {
  const by = (o.breakdown ?? []) as EventField[];
  const entryAt = by.indexOf("entry_page");
  const filters = (s.filters ?? []).filter((f) => !pageviewFilter(f));
  const pvOnly = (s.filters ?? []).some(pageviewFilter);
  // groups: the breakdown's values (strings) → a dense number
  const groupIds = new Map<string, number>(), keys: Record<string, KeyValue>[] = [];
  const groupOf = (values: KeyValue[]) => {
    const id = JSON.stringify(values);
    let g = groupIds.get(id);
    if (g === undefined) {
      groupIds.set(id, g = keys.length);
      const key: Record<string, KeyValue> = {};
      by.forEach((f, i) => (key[f] = values[i]));
      keys.push(key);
    }
    return g;
  };
  // entry pages by unit and code → a dense number (their strings in `pageNames`)
  const pageIds = new Map<string | null, number>(), pageNames: (string | null)[] = [];
  const pageId = (p: string | null) => {
    let x = pageIds.get(p);
    if (x === undefined) pageIds.set(p, x = pageNames.push(p) - 1);
    return x;
  };
  const unitPages = units.map((u) => (u.ends ? Int32Array.from(u.ends.pages, pageId) : new Int32Array(0)));
  // per group of (attribution's values, entry page): its number
  const pairGroup = new Map<number, number>();

  const { slots } = join, j = join;
  const sFirst = new Int32Array(j.n).fill(-1), sMore = new Set<number>();
  const vFirst = new Int32Array(join.visitors + 1).fill(-1), vMore = new Set<number>();
  const sessions: number[] = [], visitors: number[] = [], conversions: number[] = [], hits: number[] = [];
  let totalSessions = 0, totalVisitors = 0, totalConversions = 0;
  const apart = join.apart;
  const count = (s: number, v: number, human: boolean, g: number) => {
    while (hits.length <= g) {
      hits.push(0);
      sessions.push(0);
      visitors.push(0);
      conversions.push(0);
    }
    hits[g]++;
    if (apart) {
      const fs = sFirst[s];
      if (fs < 0) {
        sFirst[s] = g;
        sessions[g]++;
        totalSessions++;
      } else if (fs !== g && !sMore.has(s * GROUPS + g)) {
        sMore.add(s * GROUPS + g);
        sessions[g]++;
      }
    }
    if (!human) return;
    const fv = vFirst[v];
    let fresh = false;
    if (fv < 0) {
      vFirst[v] = g;
      fresh = true;
      totalVisitors++;
      if (goal && goal[v]) totalConversions++;
    } else if (fv !== g && !vMore.has(v * GROUPS + g)) {
      vMore.add(v * GROUPS + g);
      fresh = true;
    }
    if (fresh) {
      visitors[g]++;
      if (goal && goal[v]) conversions[g]++;
    }
  };

  units.forEach((u, ri) => {
    const slot = slots[ri], f = u.facts;
    const isHuman = u.traffics.map((t) => t === "human");
    // each attribution's group of values (-1: a filter drops it)
    const attrGroup = u.tuples.map((t) => {
      if (!filters.every((x) => matches(t[ATTR_INDEX.get(x.field)!], x))) return -1;
      return groupOf(by.map((field) => (field === "entry_page" ? null : t[ATTR_INDEX.get(field)!])));
    });
    const groupWithEntry = (g: number, s: number) => {
      if (entryAt < 0) return g;
      const eu = entries!.unit[s];
      const p = eu < 0 ? pageId(null) : unitPages[eu][entries!.page[s] - 1];
      const key = g * GROUPS + p;
      let x = pairGroup.get(key);
      if (x === undefined) {
        const values = Object.values(keys[g]);
        values[entryAt] = pageNames[p];
        pairGroup.set(key, x = groupOf(values));
      }
      return x;
    };
    let m = 0;
    for (let k = 0; k < f.n; k++) {
      const s = slot[k];
      const code = u.codes[k];
      if (code === MULTI_ATTR) {
        while (m < u.multi.row.length && u.multi.row[m] < k) m++;
        if (s < 0) continue;
        for (let x = m; x < u.multi.row.length && u.multi.row[x] === k; x++) {
          const g = attrGroup[u.multi.code[x]];
          if (g < 0 || (pvOnly && u.multi.pv[x] === 0)) continue;
          count(s, f.vis[k], isHuman[f.traffic[k]], groupWithEntry(g, s));
        }
        continue;
      }
      if (s < 0) continue;
      const g = attrGroup[code];
      if (g < 0 || (pvOnly && f.pv[k] === 0)) continue;
      count(s, f.vis[k], isHuman[f.traffic[k]], groupWithEntry(g, s));
    }
  });

  const figures = (n: { sessions: number; visitors: number; conversions: number }) => {
    const out: Partial<Record<Metric, number | null>> = {};
    for (const m of o.metrics) {
      if (m === "sessions") out[m] = n.sessions;
      else if (m === "visitors") out[m] = n.visitors;
      else if (m === "conversions") out[m] = n.conversions;
      else if (m === "conversion_rate") out[m] = n.visitors > 0 ? n.conversions / n.visitors : null;
    }
    return out;
  };
  const rows: Row[] = [];
  for (let g = 0; g < keys.length; g++) {
    // (a group of attribution values alone, before its entry pages, counted nothing: no row)
    if (g >= hits.length || hits[g] === 0) continue;
    rows.push({
      key: keys[g],
      metrics: figures({ sessions: sessions[g], visitors: visitors[g], conversions: conversions[g] }),
    });
  }
  return {
    totals: figures({ sessions: totalSessions, visitors: totalVisitors, conversions: totalConversions }),
    ...sortAndPage(rows, o),
  };
}
