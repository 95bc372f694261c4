/**
 * The totals loop: a question without breakdown (one group) counts into local counters instead of
 * per-group arrays, adding a run whose rows all match from its precomputed figures.
 */
import { AUTO, HUMAN, LEAVE, PV, RAGE } from "../columns/batch.ts";
import { ALL_ROWS, NO_ROWS, runSums } from "../columns/runs.ts";
import type { Accumulators } from "./accumulators.ts";
import type { Pass } from "./pass.ts";
import { SLICE_ROWS } from "./slice.ts";
import type { Turn } from "../../turns.ts";

/**
 * A question without breakdown (one group, e.g. the totals): counters instead of per-group arrays, and the
 * session figures summed over the sessions that had a matching row, after the pass.
 */
export async function totalsLoop(p: Pass, r: Accumulators, turn: Turn): Promise<void> {
  const { rb, rk, hasFacts, engagedS, entryB, entryR, exitB, exitR, states } = p;
  const { vis: runVis, ses: runSes, rows: runRows, pv: runPv, human: runHuman, humanPv: runHumanPv } = p.runs;
  const conv = r.conv, detail = r.detail, wantExits = hasFacts && r.wantExits, wantViewers = r.wantViewers;
  const wantReporters = r.wantReporters;
  const matched = new Uint8Array(p.nSes);
  let events = 0, pageviews = 0, visitors = 0, convs = 0, engaged = 0, exits = 0, entries = 0;
  let engSum = 0, engN = 0, depthSum = 0, depthN = 0, rage = 0, lastVis = -1, lastEng = -1;
  let viewers = 0, lastViewer = -1, reporters = 0, lastReporter = -1, since = 0;
  for (let q = 0; q < states.length; q++) {
    if (++since >= SLICE_ROWS) {
      since = 0;
      await turn();
    }
    const state = states[q];
    if (state === NO_ROWS) continue;
    const v = runVis[q], s = runSes[q];
    if (state === ALL_ROWS) {
      // every row of the run matches: its precomputed figures, read in order
      events += runRows[q];
      matched[s] = 1;
      if (runHuman[q] > 0) {
        if (lastVis !== v) {
          lastVis = v;
          visitors++;
          if (conv !== null && conv[v]) convs++;
        }
        if (hasFacts && engagedS[s] && lastEng !== v) {
          lastEng = v;
          engaged++;
        }
      }
      const pvs = runPv[q];
      pageviews += pvs;
      if (wantViewers && runHumanPv[q] > 0 && lastViewer !== v) {
        lastViewer = v;
        viewers++;
      }
      if (!wantExits && !detail) continue;
      const b = rb[q], k = rk[q], e = p.batches[b];
      const start = e.runStart[k], end = e.runStart[k + 1];
      if (pvs > 0 && wantExits) {
        if (exitB[s] === b && exitR[s] >= start && exitR[s] < end) exits++;
        if (entryB[s] === b && entryR[s] >= start && entryR[s] < end) entries++;
      }
      if (wantReporters && pvs < end - start && lastReporter !== v && reports(e, start, end)) {
        lastReporter = v;
        reporters++;
      }
      if (detail && pvs < end - start) {
        const sums = runSums(e);
        engSum += sums.engSum[k];
        engN += sums.engN[k];
        depthSum += sums.depthSum[k];
        depthN += sums.depthN[k];
        rage += sums.rage[k];
      }
      continue;
    }
    const b = rb[q], k = rk[q], e = p.batches[b];
    const start = e.runStart[k], end = e.runStart[k + 1];
    const m = p.masks[b], bitsRow = e.bits;
    let engRow: Float64Array | null = null, depthRow: Float64Array | null = null;
    since += end - start;
    for (let i = start; i < end; i++) {
      if (!m[i]) continue;
      const bits = bitsRow[i];
      events++;
      matched[s] = 1;
      if (bits & HUMAN) {
        if (lastVis !== v) {
          lastVis = v;
          visitors++;
          if (conv !== null && conv[v]) convs++;
        }
        if (hasFacts && engagedS[s] && lastEng !== v) {
          lastEng = v;
          engaged++;
        }
      }
      if (bits & PV) {
        pageviews++;
        if (wantViewers && bits & HUMAN && lastViewer !== v) {
          lastViewer = v;
          viewers++;
        }
        if (wantExits && exitR[s] === i && exitB[s] === b) exits++;
        if (wantExits && entryR[s] === i && entryB[s] === b) entries++;
      } else if (!detail) continue;
      else if (bits & LEAVE) {
        const x = (engRow ??= e.eng)[i], y = (depthRow ??= e.depth)[i];
        if (x === x) {
          engSum += x;
          engN++;
        }
        if (y === y) {
          depthSum += y;
          depthN++;
        }
        if (wantReporters && x === x && y === y && bits & HUMAN && lastReporter !== v) {
          lastReporter = v;
          reporters++;
        }
      } else if ((bits & (AUTO | RAGE)) === (AUTO | RAGE)) rage++;
    }
  }
  sessionTotals(p, matched, r);
  r.events[0] = events;
  r.pageviews[0] = pageviews;
  r.visitors[0] = visitors;
  if (wantViewers) r.viewers[0] = viewers;
  if (wantReporters) r.reporters[0] = reporters;
  if (conv !== null) r.convs[0] = convs;
  r.engaged[0] = engaged;
  r.exits[0] = exits;
  r.entries[0] = entries;
  r.engSum[0] = engSum;
  r.engN[0] = engN;
  r.depthSum[0] = depthSum;
  r.depthN[0] = depthN;
  r.rage[0] = rage;
}

/** Whether rows [start, end) of a batch hold a human page-leave giving both its figures (a reporter's). */
function reports(e: Pass["batches"][number], start: number, end: number): boolean {
  const bits = e.bits, eng = e.eng, depth = e.depth;
  for (let i = start; i < end; i++) {
    if ((bits[i] & (LEAVE | HUMAN)) === (LEAVE | HUMAN) && eng[i] === eng[i] && depth[i] === depth[i]) {
      return true;
    }
  }
  return false;
}

/** The session figures of the totals: over the sessions that had a matching row. */
function sessionTotals(p: Pass, matched: Uint8Array, r: Accumulators) {
  let sessions = 0, bounces = 0, dur = 0, dropped = 0;
  const { pvS, first, last, drops, hasFacts } = p;
  const hasDrops = drops.length > 0;
  for (let s = 0; s < matched.length; s++) {
    if (!matched[s]) continue;
    sessions++;
    if (hasDrops) dropped += drops[s];
    if (hasFacts) {
      if (pvS[s] <= 1) bounces++;
      dur += last[s] - first[s];
    }
  }
  r.sessions[0] = sessions;
  r.bounces[0] = bounces;
  r.dur[0] = dur;
  r.dropped[0] = dropped;
}
