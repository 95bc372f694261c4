/**
 * Session figures of a period from the rollups' session facts (session_facts.ts), without events: each
 * session's segments inside the period (its hours, touchpoint and traffic kind in scope, in any part) are
 * joined by visitor number and id hash, then counted as the scan counts them over the session's events in
 * scope: sessions, bounces (at most one pageview), duration (last - first), engaged sessions' visitors and
 * dropped events. Dropped events join from the segments' own counts when a session's segments follow each
 * other in device-time order; when two overlap (events sent across an hour's end, a clock gone back), the
 * session's people's rows (kept sorted with the facts) are gathered from all its segments and counted again.
 */
import { missingBetween } from "../../enrich/sequence.ts";
import { DistinctCounter } from "../../parts/visitor_set.ts";
import { sessionGaps } from "../scan/drops.ts";
import { isEngagedSession } from "../scan/engaged.ts";
import type { FactLists } from "./pieces.ts";
import { type FactEnds, HOUR, type SessionFacts } from "./session_facts.ts";

/** What the join reads of a part's rollup: its facts (lists aside) and what their indices name. */
export interface FactsUnit {
  facts: SessionFacts;
  tps: (string | null)[];
  traffics: (string | null)[];
}

export interface SessionTotals {
  sessions: number;
  /** sessions with a pageview in scope */
  withPageview: number;
  bounces: number;
  durationMs: number;
  engagedVisitors: number;
  dropped: number;
}

/** Growable per-session arrays of the join. */
class Joined {
  n = 0;
  h1: Uint32Array;
  h2: Uint32Array;
  vis: Uint32Array;
  pv: Uint32Array;
  first: Float64Array;
  last: Float64Array;
  act: Uint8Array;
  human: Uint8Array;
  gaps: Float64Array;
  dt0: Float64Array;
  seq0: Float64Array;
  dt1: Float64Array;
  seq1: Float64Array;
  /** 1: segments overlapping in device time (dropped events counted again from all their rows) */
  overlap: Uint8Array;

  /** room for `size` sessions: the fact rows in scope bound them */
  constructor(size: number) {
    this.h1 = new Uint32Array(size);
    this.h2 = new Uint32Array(size);
    this.vis = new Uint32Array(size);
    this.pv = new Uint32Array(size);
    this.first = new Float64Array(size);
    this.last = new Float64Array(size);
    this.act = new Uint8Array(size);
    this.human = new Uint8Array(size);
    this.gaps = new Float64Array(size);
    this.dt0 = new Float64Array(size);
    this.seq0 = new Float64Array(size);
    this.dt1 = new Float64Array(size);
    this.seq1 = new Float64Array(size);
    this.overlap = new Uint8Array(size);
  }
}

/** The period's sessions joined, before the dropped events of overlapping segments are counted again. */
export interface SessionJoin {
  j: Joined;
  /** each fact row's joined session (-1: not in scope), per unit */
  slots: Int32Array[];
  /** each unit's fact rows' hours, and its facts */
  hours: Uint32Array[];
  facts: SessionFacts[];
  visitors: number;
}

/**
 * Joins the scope's session segments (`inside[i]`: unit i's hours in the period; its touchpoint and traffic
 * kinds). Then `overlapUnits` names the units whose lists `sessionTotals` needs.
 */
export function joinSessions(
  units: FactsUnit[],
  inside: Set<number>[],
  touchpoint: string | null | undefined,
  traffic: Set<string>,
  visitorSpace: number,
  only: SessionKeys | null = null,
  masks: (Uint8Array | null)[] | null = null,
): SessionJoin {
  // (visitor, id hashes) → joined session, open addressing sized by the rows (they bound the sessions): a
  // visitor's sessions are not walked as a list, which cost a visitor with 10k sessions 10k steps a row
  // (with masks, only the rows they let in: a span path's per-part joins take a few rows of whole blocks)
  const rows = units.reduce((n, r, ri) => {
    const m = masks?.[ri];
    if (!m) return n + r.facts.n;
    let ones = 0;
    for (let k = 0; k < r.facts.n; k++) ones += m[k];
    return n + ones;
  }, 0);
  let size = 16;
  while (size < rows * 2) size *= 2;
  const table = new Int32Array(size).fill(-1);
  const j = new Joined(rows);
  const slots = units.map((r) => new Int32Array(r.facts.n).fill(-1));
  let visitors = visitorSpace;
  for (let ri = 0; ri < units.length; ri++) {
    const r = units[ri];
    const tpOk = Uint8Array.from(r.tps, (tp) => (!touchpoint || tp === touchpoint ? 1 : 0));
    const trOk = Uint8Array.from(r.traffics, (t) => (t !== null && traffic.has(t) ? 1 : 0));
    const isHuman = Uint8Array.from(r.traffics, (t) => (t === "human" ? 1 : 0));
    for (let k = 0; k < r.facts.n; k++) if (r.facts.vis[k] >= visitors) visitors = r.facts.vis[k] + 1;
    joinUnit(
      j,
      table,
      r.facts,
      slots[ri],
      hourMask(inside[ri]),
      tpOk,
      trOk,
      isHuman,
      only,
      masks?.[ri] ?? null,
    );
  }
  return {
    j,
    slots,
    hours: units.map((u) => u.facts.hour),
    facts: units.map((u) => u.facts),
    visitors,
  };
}

/**
 * Joins one unit's fact rows in scope into `j` (the hot loop of session figures: every array is a local, so
 * each access is one typed-array load).
 */
function joinUnit(
  j: Joined,
  table: Int32Array,
  f: SessionFacts,
  slot: Int32Array,
  mask: { base: number; inHour: Uint8Array },
  tpOk: Uint8Array,
  trOk: Uint8Array,
  isHuman: Uint8Array,
  only: SessionKeys | null,
  rowOk: Uint8Array | null,
) {
  const { base, inHour } = mask;
  const fHour = f.hour, fTp = f.tp, fTr = f.traffic, fVis = f.vis, fH1 = f.h1, fH2 = f.h2;
  const fPv = f.pv, fFirst = f.first, fLast = f.last, fAct = f.act, fGaps = f.gaps;
  const fDt0 = f.dt0, fSeq0 = f.seq0, fDt1 = f.dt1, fSeq1 = f.seq1;
  const jH1 = j.h1, jH2 = j.h2, jVis = j.vis, jPv = j.pv, jFirst = j.first, jLast = j.last;
  const jAct = j.act, jHuman = j.human, jGaps = j.gaps, jDt0 = j.dt0, jSeq0 = j.seq0, jDt1 = j.dt1;
  const jSeq1 = j.seq1, jOverlap = j.overlap;
  const hours = inHour.length, slotsMask = table.length - 1;
  let n = j.n;
  for (let k = 0, end = f.n; k < end; k++) {
    const ho = fHour[k] - base;
    if (!(ho >= 0 && ho < hours && inHour[ho]) || !tpOk[fTp[k]] || !trOk[fTr[k]]) continue;
    if (rowOk !== null && !rowOk[k]) continue;
    const v = fVis[k], a = fH1[k], b = fH2[k];
    if (only !== null && !hasSession(only, v, a, b)) continue;
    let at = (Math.imul(v, 0x9e3779b1) ^ Math.imul(a, 0x85ebca6b) ^ b) & slotsMask;
    let s = table[at];
    while (s >= 0 && (jH1[s] !== a || jH2[s] !== b || jVis[s] !== v)) {
      at = (at + 1) & slotsMask;
      s = table[at];
    }
    const start = fHour[k] * HOUR;
    const human = isHuman[fTr[k]];
    slot[k] = s;
    if (s < 0) {
      s = n++;
      slot[k] = s;
      jH1[s] = a;
      jH2[s] = b;
      jVis[s] = v;
      table[at] = s;
      jPv[s] = fPv[k];
      jFirst[s] = start + fFirst[k];
      jLast[s] = start + fLast[k];
      jAct[s] = fAct[k];
      jHuman[s] = human;
      jGaps[s] = fGaps[k];
      if (human) {
        jDt0[s] = fDt0[k];
        jSeq0[s] = fSeq0[k];
        jDt1[s] = fDt1[k];
        jSeq1[s] = fSeq1[k];
      }
      continue;
    }
    jPv[s] += fPv[k];
    const first = start + fFirst[k], last = start + fLast[k];
    if (first < jFirst[s]) jFirst[s] = first;
    if (last > jLast[s]) jLast[s] = last;
    jAct[s] |= fAct[k];
    if (!human) continue;
    if (!jHuman[s]) {
      jHuman[s] = 1;
      jGaps[s] = fGaps[k];
      jDt0[s] = fDt0[k];
      jSeq0[s] = fSeq0[k];
      jDt1[s] = fDt1[k];
      jSeq1[s] = fSeq1[k];
      continue;
    } else if (inOrder(jDt1[s], jSeq1[s], fDt0[k], fSeq0[k])) {
      // this segment follows the session's rows so far
      jGaps[s] += fGaps[k] + missingBetween(jSeq1[s], fSeq0[k]);
      jDt1[s] = fDt1[k];
      jSeq1[s] = fSeq1[k];
    } else if (inOrder(fDt1[k], fSeq1[k], jDt0[s], jSeq0[s])) {
      // it comes before them
      jGaps[s] += fGaps[k] + missingBetween(fSeq1[k], jSeq0[s]);
      jDt0[s] = fDt0[k];
      jSeq0[s] = fSeq0[k];
    } else jOverlap[s] = 1;
    // Segments' gaps add up to at least the whole session's (an event may continue a run of another
    // segment, a second tab: sequence.ts RunGaps), the same when none is counted: else count them again
    // from all the session's rows.
    if (jGaps[s] > 0) jOverlap[s] = 1;
  }
  j.n = n;
}

/** Sessions by key: visitor number → its sessions' id hashes (h1, h2, h1, h2, …). */
export type SessionKeys = Map<number, number[]>;

function hasSession(keys: SessionKeys, v: number, h1: number, h2: number): boolean {
  const l = keys.get(v);
  if (!l) return false;
  for (let i = 0; i < l.length; i += 2) if (l[i] === h1 && l[i + 1] === h2) return true;
  return false;
}

/** The sessions of a join, by key. */
export function joinedKeys(join: SessionJoin): SessionKeys {
  const { j } = join;
  const out: SessionKeys = new Map();
  for (let s = 0; s < j.n; s++) {
    let l = out.get(j.vis[s]);
    if (!l) out.set(j.vis[s], l = []);
    l.push(j.h1[s], j.h2[s]);
  }
  return out;
}

/**
 * Each unit's sessions in scope as sorted keys visitor × 2^32 + first id hash (to find a session's units; past
 * 2^21 visitor numbers two keys may round to one: then both units are read).
 */
export function unitKeys(join: SessionJoin): Float64Array[] {
  return join.slots.map((slot, ri) => {
    const f = join.facts[ri];
    const out: number[] = [];
    for (let k = 0; k < slot.length; k++) if (slot[k] >= 0) out.push(f.vis[k] * 4_294_967_296 + f.h1[k]);
    return Float64Array.from(out).sort();
  });
}

/** Whether sorted keys (unitKeys) may hold a session of visitor v with first id hash h1. */
export function holdsKey(keys: Float64Array, v: number, h1: number): boolean {
  const x = v * 4_294_967_296 + h1;
  let lo = 0, hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < keys.length && keys[lo] === x;
}

/** Per visitor number, its engaged people's sessions in a join (after sessionTotals). */
export function engagedPerVisitor(join: SessionJoin): Map<number, number> {
  const { j } = join, out = new Map<number, number>();
  for (let s = 0; s < j.n; s++) {
    if (j.human[s] && isEngagedSession(j.last[s] - j.first[s], j.pv[s], j.act[s] === 1)) {
      out.set(j.vis[s], (out.get(j.vis[s]) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * Per visitor number, its engaged people's sessions in a join, as a table (a join of a whole period: a Map of
 * a million visitors costs seconds where a typed array costs milliseconds).
 */
export function engagedCounts(join: SessionJoin, size: number): Uint16Array {
  const { j } = join;
  let top = Math.max(1, size);
  for (let s = 0; s < j.n; s++) if (j.vis[s] >= top) top = j.vis[s] + 1;
  const out = new Uint16Array(top);
  for (let s = 0; s < j.n; s++) {
    if (j.human[s] && isEngagedSession(j.last[s] - j.first[s], j.pv[s], j.act[s] === 1)) out[j.vis[s]]++;
  }
  return out;
}

/** The units holding rows of sessions whose segments overlap: their lists are read for `sessionTotals`. */
export function overlapUnits(join: SessionJoin): number[] {
  const { j, slots } = join;
  if (!j.overlap.subarray(0, j.n).includes(1)) return [];
  const out: number[] = [];
  slots.forEach((slot, ri) => {
    if (slot.some((s) => s >= 0 && j.overlap[s] === 1)) out.push(ri);
  });
  return out;
}

/**
 * The session totals of a join; `lists[i]`: unit i's device-time lists (needed for the units `overlapUnits`
 * names, null elsewhere).
 */
export function sessionTotals(join: SessionJoin, lists: (FactLists | null)[]): SessionTotals {
  const { j } = join;
  settleDrops(join, lists);
  // a small join counts its engaged visitors in a set (no mark per visitor number to allocate)
  const counter = j.n < 4_096 ? new SmallCounter() : new DistinctCounter(join.visitors);
  counter.next();
  const out: SessionTotals = {
    sessions: j.n,
    withPageview: 0,
    bounces: 0,
    durationMs: 0,
    engagedVisitors: 0,
    dropped: 0,
  };
  for (let s = 0; s < j.n; s++) {
    if (j.pv[s] > 0) out.withPageview++;
    if (j.pv[s] <= 1) out.bounces++;
    out.durationMs += j.last[s] - j.first[s];
    out.dropped += j.gaps[s];
    if (j.human[s] && isEngagedSession(j.last[s] - j.first[s], j.pv[s], j.act[s] === 1)) {
      counter.add(j.vis[s]);
    }
  }
  out.engagedVisitors = counter.count;
  return out;
}

/**
 * Sessions per bucket: each joined session counts once in every bucket holding one of its segments in scope
 * (`bucketOf`: an hour's bucket number). A session's buckets are few, so each keeps a short list of them.
 */
export function sessionsPerBucket(
  join: SessionJoin,
  units: FactsUnit[],
  bucketOf: (hour: number) => number,
  pageviewsOnly = false,
): Map<number, number> {
  const { j, slots } = join;
  const first = new Int32Array(j.n).fill(-1);
  const rows = slots.reduce((n, s) => n + s.length, 0);
  const nodeBucket = new Int32Array(rows), nodeNext = new Int32Array(rows);
  let nodes = 0;
  const out = new Map<number, number>();
  const bucketOfHour = new Map<number, number>();
  units.forEach((u, ri) => {
    const slot = slots[ri];
    for (let k = 0; k < slot.length; k++) {
      const s = slot[k];
      if (s < 0 || (pageviewsOnly && u.facts.pv[k] === 0)) continue;
      const hour = u.facts.hour[k];
      let b = bucketOfHour.get(hour);
      if (b === undefined) bucketOfHour.set(hour, b = bucketOf(hour));
      let x = first[s];
      while (x >= 0 && nodeBucket[x] !== b) x = nodeNext[x];
      if (x >= 0) continue;
      nodeBucket[nodes] = b;
      nodeNext[nodes] = first[s];
      first[s] = nodes++;
      out.set(b, (out.get(b) ?? 0) + 1);
    }
  });
  return out;
}

/** Each page's entries and exits: sessions whose first (last) pageview in scope is on it. */
export interface EntriesExits {
  entries: Map<string | null, number>;
  exits: Map<string | null, number>;
}

/**
 * The period's entries and exits per page, from each fact row's first and last pageview (`ends[i]`: unit
 * i's): a joined session's entry is its segments' earliest first pageview in (receive time, device time,
 * number) order, the earlier segment's among equals; its exit the latest last pageview, the later among equals.
 */
export function entriesAndExits(join: SessionJoin, ends: (FactEnds | null)[]): EntriesExits {
  const { j, slots } = join;
  // per session the winning fact row (unit, row): its times are read from that unit's ends when compared, so
  // 16 bytes a session are held instead of 64 (six Float64 copies of the times; 110 MB at 1.73M sessions)
  const entU = new Int32Array(j.n).fill(-1), entK = new Uint32Array(j.n);
  const extU = new Int32Array(j.n).fill(-1), extK = new Uint32Array(j.n);
  slots.forEach((slot, ri) => {
    const e = ends[ri];
    if (!e) return;
    const hourOf = join.hours[ri];
    for (let k = 0; k < slot.length; k++) {
      const s = slot[k];
      if (s < 0 || e.entPage[k] === 0) continue;
      const start = hourOf[k] * HOUR;
      const t0 = start + e.entT[k], t1 = start + e.extT[k];
      const u0 = entU[s], w0 = u0 < 0 ? null : ends[u0]!, x0 = entK[s];
      const wt0 = w0 ? join.hours[u0][x0] * HOUR + w0.entT[x0] : Infinity;
      const wd0 = w0 ? w0.entDt[x0] : 0, ws0 = w0 ? w0.entSeq[x0] : 0;
      if (t0 < wt0 || (t0 === wt0 && (e.entDt[k] < wd0 || (e.entDt[k] === wd0 && e.entSeq[k] < ws0)))) {
        entU[s] = ri;
        entK[s] = k;
      }
      const u1 = extU[s], w1 = u1 < 0 ? null : ends[u1]!, x1 = extK[s];
      const wt1 = w1 ? join.hours[u1][x1] * HOUR + w1.extT[x1] : -Infinity;
      const wd1 = w1 ? w1.extDt[x1] : 0, ws1 = w1 ? w1.extSeq[x1] : 0;
      if (t1 > wt1 || (t1 === wt1 && (e.extDt[k] > wd1 || (e.extDt[k] === wd1 && e.extSeq[k] >= ws1)))) {
        extU[s] = ri;
        extK[s] = k;
      }
    }
  });
  // counted per unit and page code first (typed arrays), then per page
  const entN = ends.map((e) => new Uint32Array(e ? e.pages.length + 1 : 0));
  const extN = ends.map((e) => new Uint32Array(e ? e.pages.length + 1 : 0));
  for (let s = 0; s < j.n; s++) {
    if (entU[s] < 0) continue;
    entN[entU[s]][ends[entU[s]]!.entPage[entK[s]]]++;
    extN[extU[s]][ends[extU[s]]!.extPage[extK[s]]]++;
  }
  const out: EntriesExits = { entries: new Map(), exits: new Map() };
  addByPage(out.entries, entN, ends);
  addByPage(out.exits, extN, ends);
  return out;
}

/** Adds `e`'s entries and exits (times `sign`) into `into`'s, page by page. */
export function addEnds(into: EntriesExits, e: EntriesExits, sign = 1): void {
  for (const [page, c] of e.entries) into.entries.set(page, (into.entries.get(page) ?? 0) + sign * c);
  for (const [page, c] of e.exits) into.exits.set(page, (into.exits.get(page) ?? 0) + sign * c);
}

/**
 * Adds counts by page code, one array a unit (code c the unit's pages[c - 1]; 0 no page, not counted), into
 * `into` by page.
 */
export function addByPage(
  into: Map<string | null, number>,
  counts: ArrayLike<number>[],
  units: ({ pages: (string | null)[] } | null)[],
): void {
  counts.forEach((c, u) => {
    for (let code = 1; code < c.length; code++) {
      if (!c[code]) continue;
      const page = units[u]!.pages[code - 1];
      into.set(page, (into.get(page) ?? 0) + c[code]);
    }
  });
}

/**
 * Counts again the dropped events of the join's sessions whose segments overlap, from their rows in the
 * lists given (`lists[i]`: unit i's, or null). Done once per join (again gives the same).
 */
export function settleDrops(join: SessionJoin, lists: (FactLists | null)[]): void {
  const { j } = join;
  if (j.overlap.subarray(0, j.n).includes(1)) rejoinOverlaps(lists, join.slots, j);
}

/** Dropped events of the sessions whose segments overlap, from all their people's rows in scope. */
function rejoinOverlaps(lists: (FactLists | null)[], slots: Int32Array[], j: Joined) {
  const rows = new Map<number, { dt: number[]; seq: number[] }>();
  for (let ri = 0; ri < slots.length; ri++) {
    const f = lists[ri], slot = slots[ri];
    if (!f) continue;
    for (let k = 0; k < slot.length; k++) {
      const s = slot[k];
      if (s < 0 || !j.overlap[s] || f.listAt[k + 1] === f.listAt[k]) continue;
      let list = rows.get(s);
      if (!list) rows.set(s, list = { dt: [], seq: [] });
      for (let x = f.listAt[k]; x < f.listAt[k + 1]; x++) {
        list.dt.push(f.listDt[x]);
        list.seq.push(f.listSeq[x]);
      }
    }
  }
  for (const [s, list] of rows) j.gaps[s] = sessionGaps(list.dt, list.seq);
}

/** Distinct members of a few, as DistinctCounter counts them. */
class SmallCounter {
  private seen = new Set<number>();
  next() {
    this.seen.clear();
  }
  add(v: number) {
    this.seen.add(v);
  }
  get count() {
    return this.seen.size;
  }
}

/** The hours of a set as a mask from its smallest. */
export function hourMask(hours: Set<number>): { base: number; inHour: Uint8Array } {
  if (!hours.size) return { base: 0, inHour: new Uint8Array(0) };
  let lo = Infinity, hi = -Infinity;
  for (const h of hours) {
    if (h < lo) lo = h;
    if (h > hi) hi = h;
  }
  const inHour = new Uint8Array(hi - lo + 1);
  for (const h of hours) inHour[h - lo] = 1;
  return { base: lo, inHour };
}

/** Row a comes no later than row b in (device time, number) order. */
const inOrder = (dtA: number, seqA: number, dtB: number, seqB: number) =>
  dtA < dtB || (dtA === dtB && seqA <= seqB);
