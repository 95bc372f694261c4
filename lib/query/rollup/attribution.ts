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

export const ATTR_INDEX = new Map<string, number>(ATTR_FIELDS.map((f, i) => [f, i]));
export const ATTRIBUTION_METRICS: ReadonlySet<Metric> = new Set<Metric>([
  "visitors",
  "sessions",
  "conversions",
  "conversion_rate",
]);

/** Whether the filter keeps page views only (rows with a pageview of the attribution). */
export const pageviewFilter = (f: { field: string; op: string; value: unknown }) =>
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

/** The fact columns the attribution join reads (a block's rows, or a whole part's). */
export type LeanFacts = Pick<SessionFacts, "n" | "vis" | "h1" | "h2" | "hour" | "tp" | "traffic" | "pv">;

/** A part's (or the raw tail's) facts with their attributions, and what their indices name. */
export interface AttrUnit {
  facts: LeanFacts;
  tps: (string | null)[];
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
  units: { facts: LeanFacts; tps: (string | null)[]; traffics: (string | null)[] }[],
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
  // per session its winning fact row (unit, row), times read from that unit's ends when compared: 8 bytes a
  // session held instead of 32 (three Float64 copies of the times)
  const unit = new Int32Array(j.n).fill(-1), row = new Uint32Array(j.n);
  slots.forEach((slot, ri) => {
    const e = ends[ri];
    if (!e) return;
    const hourOf = join.hours[ri];
    for (let k = 0; k < slot.length; k++) {
      const s = slot[k];
      if (s < 0 || e.entPage[k] === 0) continue;
      const u = unit[s], w = u < 0 ? null : ends[u]!, x = row[s];
      const t0 = hourOf[k] * HOUR + e.entT[k];
      // the first candidate is compared with (Infinity, 0, 0), as the times' arrays were filled
      const wt = w ? join.hours[u][x] * HOUR + w.entT[x] : Infinity;
      const wd = w ? w.entDt[x] : 0, ws = w ? w.entSeq[x] : 0;
      // strictly earlier wins, as entriesAndExits (sessions.ts) orders them
      if (!(t0 < wt || (t0 === wt && (e.entDt[k] < wd || (e.entDt[k] === wd && e.entSeq[k] < ws))))) continue;
      unit[s] = ri;
      row[s] = k;
    }
  });
  const page = Uint32Array.from(unit, (u, s) => (u < 0 ? 0 : ends[u]!.entPage[row[s]]));
  return { unit, page };
}

/**
 * A period's fact rows in scope, flat: one entry per row and attribution of it (a row of several, one per
 * attribution), with its session told apart. What every attribution question of the period is counted from;
 * kept per period for the parts (source.ts), the raw tail's rows added per question (withTailRows).
 */
export interface AttrRows {
  n: number;
  vis: Uint32Array;
  h1: Uint32Array;
  h2: Uint32Array;
  /** the session's number in these rows */
  sid: Int32Array;
  /** the attribution (into `tuples`) × 4 + flags (1: a people's row; 2: with a pageview of the attribution) */
  attr: Int32Array;
  sessions: number;
  /** per session its entry page (into `pages`; -1: no pageview in scope), or null when not computed */
  entry: Int32Array | null;
  pages: (string | null)[];
  tuples: (string | null)[][];
  /** a bound on the visitor numbers */
  visitors: number;
  /** rows [0, sorted) are in attribution order: those of attribution a at [attrAt[a], attrAt[a + 1]) */
  sorted: number;
  attrAt: Int32Array;
}

/**
 * Distinct values numbered as they come (attributions, pages: several parts' or a kept answer's and a raw
 * tail's in one numbering): `of(x)` is x's place in `list`, appended when new. `start` keeps its places.
 */
export class Numbering<T> {
  readonly list: T[];
  readonly #ids = new Map<unknown, number>();
  constructor(readonly keyOf: (x: T) => unknown = (x) => x, start: readonly T[] = []) {
    this.list = [...start];
    start.forEach((x, i) => this.#ids.set(keyOf(x), i));
  }
  of(x: T): number {
    const k = this.keyOf(x);
    let i = this.#ids.get(k);
    if (i === undefined) this.#ids.set(k, i = this.list.push(x) - 1);
    return i;
  }
}

/** An attribution tuple's key in a numbering of tuples. */
export const tupleKey = (t: (string | null)[]): string => JSON.stringify(t);

/** The rows in scope of a join (sessions told apart) as AttrRows; `entries` when entry pages are wanted. */
export function flattenRows(
  units: AttrUnit[],
  join: AttrJoin,
  entries: { unit: Int32Array; page: Uint32Array } | null,
): AttrRows {
  const tuples = new Numbering<(string | null)[]>(tupleKey), pages = new Numbering<string | null>();
  let n = 0;
  units.forEach((u, ri) => {
    const slot = join.slots[ri];
    for (let k = 0; k < slot.length; k++) if (slot[k] >= 0 && u.codes[k] !== MULTI_ATTR) n++;
    for (let x = 0; x < u.multi.row.length; x++) if (slot[u.multi.row[x]] >= 0) n++;
  });
  const out: AttrRows = {
    n,
    vis: new Uint32Array(n),
    h1: new Uint32Array(n),
    h2: new Uint32Array(n),
    sid: new Int32Array(n),
    attr: new Int32Array(n),
    sessions: join.n,
    entry: null,
    pages: pages.list,
    tuples: tuples.list,
    visitors: join.visitors,
    sorted: n,
    attrAt: new Int32Array(1),
  };
  let i = 0;
  units.forEach((u, ri) => {
    const slot = join.slots[ri], f = u.facts;
    const human = u.traffics.map((t) => (t === "human" ? 1 : 0));
    const ids = u.tuples.map((t) => tuples.of(t));
    const put = (k: number, code: number, pv: number) => {
      out.vis[i] = f.vis[k];
      out.h1[i] = f.h1[k];
      out.h2[i] = f.h2[k];
      out.sid[i] = slot[k];
      out.attr[i++] = ids[code] * 4 + (human[f.traffic[k]] | (pv > 0 ? 2 : 0));
    };
    let m = 0;
    for (let k = 0; k < f.n; k++) {
      if (slot[k] < 0) continue;
      if (u.codes[k] !== MULTI_ATTR) {
        put(k, u.codes[k], f.pv[k]);
        continue;
      }
      while (m < u.multi.row.length && u.multi.row[m] < k) m++;
      for (let x = m; x < u.multi.row.length && u.multi.row[x] === k; x++) {
        put(k, u.multi.code[x], u.multi.pv[x]);
      }
    }
  });
  // the rows in attribution order (a counting sort): a question's groups read theirs in one pass
  const attrAt = new Int32Array(tuples.list.length + 1);
  for (let x = 0; x < n; x++) attrAt[(out.attr[x] >> 2) + 1]++;
  for (let a = 0; a < tuples.list.length; a++) attrAt[a + 1] += attrAt[a];
  const to = new Int32Array(n), fill = attrAt.slice(0, tuples.list.length);
  for (let x = 0; x < n; x++) to[x] = fill[out.attr[x] >> 2]++;
  const permute = <T extends Uint32Array | Int32Array>(a: T) => {
    const b = a.slice() as T;
    for (let x = 0; x < n; x++) b[to[x]] = a[x];
    return b;
  };
  out.vis = permute(out.vis);
  out.h1 = permute(out.h1);
  out.h2 = permute(out.h2);
  out.sid = permute(out.sid);
  out.attr = permute(out.attr);
  out.attrAt = attrAt;
  if (entries) {
    const unitPages = units.map((
      u,
    ) => (u.ends ? Int32Array.from(u.ends.pages, (p) => pages.of(p)) : new Int32Array(0)));
    out.entry = Int32Array.from(entries.unit, (eu, s) => (eu < 0 ? -1 : unitPages[eu][entries.page[s] - 1]));
  }
  return out;
}

/** The bytes AttrRows hold (to weigh them in the cache). */
export const attrRowsBytes = (r: AttrRows): number =>
  r.vis.byteLength + r.h1.byteLength + r.h2.byteLength + r.sid.byteLength + r.attr.byteLength +
  (r.entry ? r.entry.byteLength : 0) + r.tuples.length * 200 + r.pages.length * 60;

/**
 * The parts' rows (kept; `hashes`: their id hashes, kept apart) with the raw tail's added (both AttrRows of
 * their own joins): a tail session that is also in the parts takes the parts' number. Null when entry pages are asked and a tail session is also in
 * the parts (its entry may be either's: the caller joins all together).
 */
export function withTailRows(
  kept: AttrRows,
  hashes: { h1: Uint32Array; h2: Uint32Array },
  tail: AttrRows,
): AttrRows | null {
  if (!tail.n) return kept;
  const tailKey = new Map<string, number>(), tailVis = new Set<number>();
  for (let i = 0; i < tail.n; i++) {
    tailKey.set(`${tail.vis[i]}.${tail.h1[i]}.${tail.h2[i]}`, tail.sid[i]);
    tailVis.add(tail.vis[i]);
  }
  // tail session → its number in the rows together
  const sidOf = new Int32Array(tail.sessions).fill(-1);
  for (let i = 0; i < kept.n; i++) {
    if (!tailVis.has(kept.vis[i])) continue;
    const t = tailKey.get(`${kept.vis[i]}.${hashes.h1[i]}.${hashes.h2[i]}`);
    if (t !== undefined) sidOf[t] = kept.sid[i];
  }
  const shared = sidOf.some((x) => x >= 0);
  if (shared && kept.entry) return null;
  let next = kept.sessions;
  for (let t = 0; t < sidOf.length; t++) if (sidOf[t] < 0) sidOf[t] = next++;
  const tupleNums = new Numbering(tupleKey, kept.tuples), pageNums = new Numbering(undefined, kept.pages);
  const tupleOf = tail.tuples.map((t) => tupleNums.of(t)), pageOf = tail.pages.map((p) => pageNums.of(p));
  const tuples = tupleNums.list, pages = pageNums.list;
  const n = kept.n + tail.n;
  const cat = <T extends Uint32Array | Int32Array | Uint8Array>(a: T, b: T, make: new (n: number) => T) => {
    const x = new make(n);
    x.set(a);
    x.set(b, kept.n);
    return x;
  };
  const out: AttrRows = {
    n,
    vis: cat(kept.vis, tail.vis, Uint32Array),
    // (the sessions are numbered: their hashes are not needed past here)
    h1: new Uint32Array(0),
    h2: new Uint32Array(0),
    sid: cat(kept.sid, Int32Array.from(tail.sid, (t) => sidOf[t]), Int32Array),
    attr: cat(kept.attr, Int32Array.from(tail.attr, (t) => tupleOf[t >> 2] * 4 + (t & 3)), Int32Array),
    sessions: next,
    entry: null,
    pages,
    tuples,
    visitors: Math.max(kept.visitors, tail.visitors),
    sorted: kept.sorted,
    attrAt: kept.attrAt,
  };
  if (kept.entry && tail.entry) {
    out.entry = new Int32Array(next);
    out.entry.set(kept.entry);
    for (let t = 0; t < sidOf.length; t++) {
      out.entry[sidOf[t]] = tail.entry[t] < 0 ? -1 : pageOf[tail.entry[t]];
    }
  }
  return out;
}

/** A group's sessions, visitors and converted visitors. */
export type Tally = { sessions: number; visitors: number; conversions: number };

/**
 * The groups one question counts into (answerAttribution from rows, answerRuns from runs and rows): each
 * attribution's group of breakdown values (-1: a filter drops it), and with the entry page (group, page) → the
 * group of both (`withEntry`, the group itself when no entry page is asked). `keys` grows as groups are made.
 */
export function attributionGroups(
  s: Scope,
  o: AggregateOptions,
  tuples: (string | null)[][],
  pages: (string | null)[],
) {
  const by = (o.breakdown ?? []) as EventField[];
  const entryAt = by.indexOf("entry_page");
  const filters = (s.filters ?? []).filter((f) => !pageviewFilter(f));
  const pvOnly = (s.filters ?? []).some(pageviewFilter);
  // groups: the breakdown's values → a dense number
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
  const attrGroup = tuples.map((t) => {
    if (!filters.every((x) => matches(t[ATTR_INDEX.get(x.field)!], x))) return -1;
    return groupOf(by.map((field) => (field === "entry_page" ? null : t[ATTR_INDEX.get(field)!])));
  });
  // (by group, then page: one key of both, g * 2^22 + page, was a heap number past 256 groups, made on every
  // call: ~3 MB of garbage outliving young collections in a cold crawl coverage at 10M events)
  const pairGroup: Map<number, number>[] = [];
  const withEntry = (g: number, page: number) => {
    if (entryAt < 0) return g;
    const byPage = pairGroup[g] ??= new Map();
    let x = byPage.get(page);
    if (x === undefined) {
      const values = by.map((f) => keys[g][f]);
      values[entryAt] = page < 0 ? null : pages[page];
      byPage.set(page, x = groupOf(values));
    }
    return x;
  };
  return { entryAt, pvOnly, keys, attrGroup, withEntry };
}

/** A question's metrics from a group's tally. */
export function attributionFigures(metrics: Metric[], n: Tally): Partial<Record<Metric, number | null>> {
  const out: Partial<Record<Metric, number | null>> = {};
  for (const m of metrics) {
    if (m === "sessions") out[m] = n.sessions;
    else if (m === "visitors") out[m] = n.visitors;
    else if (m === "conversions") out[m] = n.conversions;
    else if (m === "conversion_rate") out[m] = n.visitors > 0 ? n.conversions / n.visitors : null;
  }
  return out;
}

/**
 * The answer to one question (attributionBlocker null) from a period's rows (`rows.entry` set when the
 * breakdown has the entry page), `goal` the visitor numbers with the goal event in scope (null without one).
 */
export function answerAttribution(
  rows: AttrRows,
  goal: Uint8Array | null,
  s: Scope,
  o: AggregateOptions,
): AggregateResult {
  const { entryAt, pvOnly, keys, attrGroup, withEntry } = attributionGroups(s, o, rows.tuples, rows.pages);
  const groups = keys.length;
  // the matched rows by group (`order`, group g's at [at[g], at[g + 1])): without entry pages from the rows'
  // order by attribution (the rows past `sorted`, the raw tail's, added to their groups); else each row's
  // group, then a counting sort
  let at = new Int32Array(groups + 1), order: Int32Array, matched = 0;
  if (entryAt < 0) {
    const attrsOf: number[][] = keys.map(() => []), extra: number[][] = keys.map(() => []);
    attrGroup.forEach((g, a) => g >= 0 && attrsOf[g].push(a));
    for (let i = rows.sorted; i < rows.n; i++) {
      const g = attrGroup[rows.attr[i] >> 2];
      if (g >= 0) extra[g].push(i);
    }
    order = new Int32Array(rows.n);
    for (let g = 0; g < groups; g++) {
      at[g] = matched;
      for (const a of attrsOf[g]) {
        for (let i = rows.attrAt[a], end = rows.attrAt[a + 1]; i < end; i++) {
          if (!pvOnly || rows.attr[i] & 2) order[matched++] = i;
        }
      }
      for (const i of extra[g]) if (!pvOnly || rows.attr[i] & 2) order[matched++] = i;
    }
    at[groups] = matched;
  } else {
    const rowGroup = new Int32Array(rows.n);
    for (let i = 0; i < rows.n; i++) {
      let g = attrGroup[rows.attr[i] >> 2];
      if (g >= 0 && pvOnly && !(rows.attr[i] & 2)) g = -1;
      if (g >= 0) g = withEntry(g, rows.entry![rows.sid[i]]);
      rowGroup[i] = g;
      if (g >= 0) matched++;
    }
    at = new Int32Array(keys.length + 1);
    for (let i = 0; i < rows.n; i++) if (rowGroup[i] >= 0) at[rowGroup[i] + 1]++;
    for (let g = 0; g < keys.length; g++) at[g + 1] += at[g];
    order = new Int32Array(matched);
    const fill = at.slice(0, keys.length);
    for (let i = 0; i < rows.n; i++) if (rowGroup[i] >= 0) order[fill[rowGroup[i]]++] = i;
  }
  const sMark = new Int32Array(rows.sessions), vMark = new Int32Array(rows.visitors + 1);
  const tally = (stamp: number, from: number, to: number) => {
    const out = { sessions: 0, visitors: 0, conversions: 0 };
    for (let x = from; x < to; x++) {
      const i = order[x];
      if (sMark[rows.sid[i]] !== stamp) {
        sMark[rows.sid[i]] = stamp;
        out.sessions++;
      }
      const v = rows.vis[i];
      if (rows.attr[i] & 1 && vMark[v] !== stamp) {
        vMark[v] = stamp;
        out.visitors++;
        if (goal && goal[v]) out.conversions++;
      }
    }
    return out;
  };
  const figures = (n: Tally) => attributionFigures(o.metrics, n);
  const out: Row[] = [];
  const final = keys.length;
  for (let g = 0; g < final; g++) {
    // (a group of attribution values alone, before its entry pages, matched nothing: no row)
    if (at[g + 1] === at[g]) continue;
    out.push({ key: keys[g], metrics: figures(tally(g + 1, at[g], at[g + 1])) });
  }
  return { totals: figures(tally(final + 1, 0, matched)), ...sortAndPage(out, o) };
}
