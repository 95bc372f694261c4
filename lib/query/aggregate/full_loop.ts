/**
 * The full loop of a breakdown: every figure per group, row by row over the matching rows in visitor
 * order. Session figures count once per group and session ("last session counted in this group"; the few
 * sessions split across batches through a set).
 */
import { AUTO, HUMAN, LEAVE, PV, RAGE } from "../columns/batch.ts";
import { NO_ROWS } from "../columns/runs.ts";
import type { Accumulators } from "./accumulators.ts";
import type { Pass } from "./pass.ts";
import { SLICE_ROWS } from "./slice.ts";
import type { Turn } from "../../turns.ts";

export async function fullLoop(p: Pass, r: Accumulators, turn: Turn): Promise<void> {
  const { rb, rk, states, split, nSes, hasFacts, engagedS, pvS, first, last, entryB, entryR, exitB, exitR } =
    p;
  const { events, pageviews, visitors, lastVis, conv, convs, engaged, lastEng, lastSes, sessions } = r;
  const { bounces, dur, exits, entries, engSum, engN, depthSum, depthN, rage, splitSeen, dropped } = r;
  const perSession = r.perSession, wantEngaged = hasFacts && r.wantEngaged;
  const wantViewers = r.wantViewers, viewers = r.viewers, lastViewer = r.lastViewer;
  const wantReporters = r.wantReporters, reporters = r.reporters, lastReporter = r.lastReporter;
  const drops = p.drops, hasDrops = drops.length > 0;
  let since = 0;
  for (let q = 0; q < rb.length; q++) {
    if (++since >= SLICE_ROWS) {
      since = 0;
      await turn();
    }
    if (states[q] === NO_ROWS) continue;
    const b = rb[q], k = rk[q], e = p.batches[b], m = p.masks[b], gid = r.gs.gids[b];
    since += e.runStart[k + 1] - e.runStart[k];
    const bitsRow = e.bits, visRow = e.vis, sesRow = e.ses, engRow = e.eng, depthRow = e.depth;
    for (let i = e.runStart[k], end = e.runStart[k + 1]; i < end; i++) {
      if (!m[i]) continue;
      const g = gid[i], bits = bitsRow[i], v = visRow[i], s = sesRow[i];
      events[g]++;
      if (bits & HUMAN) {
        if (lastVis[g] !== v) {
          lastVis[g] = v;
          visitors[g]++;
          if (conv !== null && conv[v]) convs[g]++;
        }
        if (wantEngaged && engagedS[s] && lastEng[g] !== v) {
          lastEng[g] = v;
          engaged[g]++;
        }
      }
      if (perSession && lastSes[g] !== s) {
        lastSes[g] = s;
        let fresh = true;
        if (split[s]) {
          const key = g * nSes + s;
          if (splitSeen.has(key)) fresh = false;
          else splitSeen.add(key);
        }
        if (fresh) {
          sessions[g]++;
          if (hasDrops) dropped[g] += drops[s];
          if (hasFacts) {
            if (pvS[s] <= 1) bounces[g]++;
            dur[g] += last[s] - first[s];
          }
        }
      }
      if (bits & PV) {
        pageviews[g]++;
        if (wantViewers && bits & HUMAN && lastViewer[g] !== v) {
          lastViewer[g] = v;
          viewers[g]++;
        }
        if (hasFacts && exitR[s] === i && exitB[s] === b) exits[g]++;
        if (hasFacts && entryR[s] === i && entryB[s] === b) entries[g]++;
      } else if (bits & LEAVE) {
        const x = engRow[i], y = depthRow[i];
        if (x === x) {
          engSum[g] += x;
          engN[g]++;
        }
        if (y === y) {
          depthSum[g] += y;
          depthN[g]++;
        }
        if (wantReporters && x === x && y === y && bits & HUMAN && lastReporter[g] !== v) {
          lastReporter[g] = v;
          reporters[g]++;
        }
      } else if ((bits & (AUTO | RAGE)) === (AUTO | RAGE)) rage[g]++;
    }
  }
}
