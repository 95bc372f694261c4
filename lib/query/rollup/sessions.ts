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
import { HOUR, type SessionFacts } from "./session_facts.ts";

/** What the join reads of a part's rollup: its facts (lists aside) and what their indices name. */
export interface FactsUnit {
  facts: SessionFacts;
  tps: (string | null)[];
  traffics: (string | null)[];
}

export interface SessionTotals {
  sessions: number;
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
  next: Int32Array;
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
    this.next = new Int32Array(size);
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
): SessionJoin {
  // visitor number → its first joined session (the chain runs through `next`)
  let head = new Int32Array(Math.max(1, visitorSpace)).fill(-1);
  const j = new Joined(units.reduce((n, r) => n + r.facts.n, 0));
  const slots = units.map((r) => new Int32Array(r.facts.n).fill(-1));
  for (let ri = 0; ri < units.length; ri++) {
    const r = units[ri], f = r.facts, slot = slots[ri];
    const { base, inHour } = hourMask(inside[ri]);
    const tpOk = r.tps.map((tp) => !touchpoint || tp === touchpoint);
    const trOk = r.traffics.map((t) => t !== null && traffic.has(t));
    const isHuman = r.traffics.map((t) => t === "human");
    for (let k = 0; k < f.n; k++) {
      const ho = f.hour[k] - base;
      if (!tpOk[f.tp[k]] || !trOk[f.traffic[k]] || !(ho >= 0 && ho < inHour.length && inHour[ho])) continue;
      const v = f.vis[k], a = f.h1[k], b = f.h2[k];
      if (v >= head.length) {
        const grown = new Int32Array(Math.max(v + 1, head.length * 2)).fill(-1);
        grown.set(head);
        head = grown;
      }
      let s = head[v];
      while (s >= 0 && (j.h1[s] !== a || j.h2[s] !== b)) s = j.next[s];
      const start = f.hour[k] * HOUR;
      const human = isHuman[f.traffic[k]];
      if (s < 0) {
        s = j.n++;
        j.h1[s] = a;
        j.h2[s] = b;
        j.vis[s] = v;
        j.next[s] = head[v];
        head[v] = s;
        slot[k] = s;
        j.pv[s] = f.pv[k];
        j.first[s] = start + f.first[k];
        j.last[s] = start + f.last[k];
        j.act[s] = f.act[k];
        j.human[s] = human ? 1 : 0;
        j.gaps[s] = f.gaps[k];
        if (human) {
          j.dt0[s] = f.dt0[k];
          j.seq0[s] = f.seq0[k];
          j.dt1[s] = f.dt1[k];
          j.seq1[s] = f.seq1[k];
        }
        continue;
      }
      slot[k] = s;
      j.pv[s] += f.pv[k];
      j.first[s] = Math.min(j.first[s], start + f.first[k]);
      j.last[s] = Math.max(j.last[s], start + f.last[k]);
      j.act[s] |= f.act[k];
      if (!human) continue;
      if (!j.human[s]) {
        j.human[s] = 1;
        j.gaps[s] = f.gaps[k];
        j.dt0[s] = f.dt0[k];
        j.seq0[s] = f.seq0[k];
        j.dt1[s] = f.dt1[k];
        j.seq1[s] = f.seq1[k];
      } else if (inOrder(j.dt1[s], j.seq1[s], f.dt0[k], f.seq0[k])) {
        // this segment follows the session's rows so far
        j.gaps[s] += f.gaps[k] + missingBetween(j.seq1[s], f.seq0[k]);
        j.dt1[s] = f.dt1[k];
        j.seq1[s] = f.seq1[k];
      } else if (inOrder(f.dt1[k], f.seq1[k], j.dt0[s], j.seq0[s])) {
        // it comes before them
        j.gaps[s] += f.gaps[k] + missingBetween(f.seq1[k], j.seq0[s]);
        j.dt0[s] = f.dt0[k];
        j.seq0[s] = f.seq0[k];
      } else j.overlap[s] = 1;
    }
  }
  return { j, slots, visitors: head.length };
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
  if (j.overlap.subarray(0, j.n).includes(1)) rejoinOverlaps(lists, join.slots, j);
  const counter = new DistinctCounter(join.visitors);
  counter.next();
  const out: SessionTotals = { sessions: j.n, bounces: 0, durationMs: 0, engagedVisitors: 0, dropped: 0 };
  for (let s = 0; s < j.n; s++) {
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
      if (s < 0) continue;
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

/** The hours of a set as a mask from its smallest. */
function hourMask(hours: Set<number>): { base: number; inHour: Uint8Array } {
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
