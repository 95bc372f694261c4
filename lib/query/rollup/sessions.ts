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
import type { Rollup } from "./build.ts";
import { HOUR } from "./session_facts.ts";

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
  h1 = new Uint32Array(1024);
  h2 = new Uint32Array(1024);
  vis = new Uint32Array(1024);
  next = new Int32Array(1024);
  pv = new Uint32Array(1024);
  first = new Float64Array(1024);
  last = new Float64Array(1024);
  act = new Uint8Array(1024);
  human = new Uint8Array(1024);
  gaps = new Float64Array(1024);
  dt0 = new Float64Array(1024);
  seq0 = new Float64Array(1024);
  dt1 = new Float64Array(1024);
  seq1 = new Float64Array(1024);
  /** 1: segments overlapping in device time (dropped events counted again from all their rows) */
  overlap = new Uint8Array(1024);

  add(): number {
    if (this.n === this.h1.length) {
      for (const k of Object.keys(this) as (keyof this)[]) {
        const a = this[k];
        if (ArrayBuffer.isView(a)) {
          const b = new (a.constructor as new (n: number) => typeof a & { set(x: unknown): void })(
            this.n * 2,
          );
          b.set(a);
          this[k] = b;
        }
      }
    }
    return this.n++;
  }
}

/**
 * The session totals of the scope's hours (`inside[i]`: rollup i's hours in the period), touchpoint and
 * traffic kinds.
 */
export function sessionTotals(
  rollups: Rollup[],
  inside: Set<number>[],
  touchpoint: string | null | undefined,
  traffic: Set<string>,
  visitorSpace: number,
): SessionTotals {
  // visitor number → its first joined session (the chain runs through `next`)
  let head = new Int32Array(Math.max(1, visitorSpace)).fill(-1);
  const j = new Joined();
  for (let ri = 0; ri < rollups.length; ri++) {
    const r = rollups[ri], f = r.facts, hours = inside[ri];
    const tpOk = r.tps.map((tp) => !touchpoint || tp === touchpoint);
    const trOk = r.traffics.map((t) => t !== null && traffic.has(t));
    const isHuman = r.traffics.map((t) => t === "human");
    for (let k = 0; k < f.n; k++) {
      if (!tpOk[f.tp[k]] || !trOk[f.traffic[k]] || !hours.has(f.hour[k])) continue;
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
        s = j.add();
        j.h1[s] = a;
        j.h2[s] = b;
        j.vis[s] = v;
        j.next[s] = head[v];
        head[v] = s;
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
  if (j.overlap.subarray(0, j.n).includes(1)) rejoinOverlaps(rollups, inside, touchpoint, traffic, head, j);
  const counter = new DistinctCounter(head.length);
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

/** Dropped events of the sessions whose segments overlap, from all their people's rows in scope. */
function rejoinOverlaps(
  rollups: Rollup[],
  inside: Set<number>[],
  touchpoint: string | null | undefined,
  traffic: Set<string>,
  head: Int32Array,
  j: Joined,
) {
  const rows = new Map<number, { dt: number[]; seq: number[] }>();
  for (let ri = 0; ri < rollups.length; ri++) {
    const r = rollups[ri], f = r.facts, hours = inside[ri];
    const ok = r.traffics.map((t) => t === "human" && traffic.has(t));
    const tpOk = r.tps.map((tp) => !touchpoint || tp === touchpoint);
    for (let k = 0; k < f.n; k++) {
      if (!ok[f.traffic[k]] || !tpOk[f.tp[k]] || !hours.has(f.hour[k])) continue;
      let s = head[f.vis[k]];
      while (s >= 0 && (j.h1[s] !== f.h1[k] || j.h2[s] !== f.h2[k])) s = j.next[s];
      if (s < 0 || !j.overlap[s]) continue;
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

/** Row a comes no later than row b in (device time, number) order. */
const inOrder = (dtA: number, seqA: number, dtB: number, seqB: number) =>
  dtA < dtB || (dtA === dtB && seqA <= seqB);
