/** The lean loop: questions that count only events, pageviews, visitors and conversions. */
import { HUMAN, PV } from "../columns/batch.ts";
import { ALL_ROWS, NO_ROWS } from "../columns/runs.ts";
import type { Accumulators } from "./accumulators.ts";
import type { Pass } from "./pass.ts";
import { SLICE_ROWS } from "./slice.ts";
import type { Turn } from "../../turns.ts";

const HUMAN_PV = HUMAN | PV;

/**
 * Lean questions (events, pageviews, visitors) in one walk over the session runs in visitor order: the
 * run's figures are read once (contiguous), then each question adds the run whole or row by row.
 */
export async function leanLoop(p: Pass, runs: Accumulators[], turn: Turn): Promise<void> {
  const { rb, rk, states } = p;
  const { vis: runVis, rows: runRows, pv: runPv, human: runHuman, humanPv: runHumanPv } = p.runs;
  const K = runs.length;
  const runGids = runs.map((r) => r.gs.runGids ?? null);
  const gids = runs.map((r) => r.gs.gids);
  const events = runs.map((r) => r.events), pageviews = runs.map((r) => r.pageviews);
  const visitors = runs.map((r) => r.visitors), lastVis = runs.map((r) => r.lastVis);
  const convs = runs.map((r) => r.convs), conv = runs.map((r) => r.conv);
  const viewers = runs.map((r) => r.wantViewers ? r.viewers : null),
    lastViewer = runs.map((r) => r.lastViewer);
  let since = 0;
  for (let q = 0; q < states.length; q++) {
    if ((since += K) >= SLICE_ROWS) {
      since = 0;
      await turn();
    }
    const state = states[q];
    if (state === NO_ROWS) continue;
    const v = runVis[q], rows = runRows[q], pvs = runPv[q], human = runHuman[q] > 0;
    for (let x = 0; x < K; x++) {
      const rg = runGids[x], g0 = state === ALL_ROWS && rg !== null ? rg[q] : -1;
      const ev = events[x], pv = pageviews[x], vs = visitors[x], last = lastVis[x], cv = conv[x];
      const vw = viewers[x], lastVw = lastViewer[x];
      if (g0 >= 0) {
        ev[g0] += rows;
        pv[g0] += pvs;
        if (human && last[g0] !== v) {
          last[g0] = v;
          vs[g0]++;
          if (cv !== null && cv[v]) convs[x][g0]++;
        }
        if (vw !== null && runHumanPv[q] > 0 && lastVw[g0] !== v) {
          lastVw[g0] = v;
          vw[g0]++;
        }
        continue;
      }
      const b = rb[q], k = rk[q], e = p.batches[b];
      const m = p.masks[b], gid = gids[x][b], bitsRow = e.bits;
      since += e.runStart[k + 1] - e.runStart[k];
      for (let i = e.runStart[k], end = e.runStart[k + 1]; i < end; i++) {
        if (!m[i]) continue;
        const g = gid[i], bits = bitsRow[i];
        ev[g]++;
        if (bits & PV) pv[g]++;
        if (bits & HUMAN && last[g] !== v) {
          last[g] = v;
          vs[g]++;
          if (cv !== null && cv[v]) convs[x][g]++;
        }
        if (vw !== null && (bits & HUMAN_PV) === HUMAN_PV && lastVw[g] !== v) {
          lastVw[g] = v;
          vw[g]++;
        }
      }
    }
  }
}
