/**
 * Funnels: units (visitors, or sessions) that reached each step in order, optionally within a window from
 * step 1; the best start counts.
 */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import type { FunnelOptions, FunnelResult } from "../types.ts";
import { cmpRef, forEachSession, type Ref } from "./rows.ts";
import { stepBits } from "./steps.ts";

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

export function funnel(c: Ctx, opts: FunnelOptions): FunnelResult {
  const bits = stepBits(c, opts.steps);
  const nSteps = opts.steps.length;
  const reached = new Array(nSteps).fill(0);
  const cmp = cmpRef(c);
  const walk = (rows: Ref[]) => {
    let best = 0;
    for (let s = 0; s < rows.length && best < nSteps; s++) {
      if (!(bits[rows[s].b][rows[s].i] & 1)) continue;
      const t0 = c.batches[rows[s].b].t[rows[s].i];
      let n = 1;
      for (let j = s + 1; j < rows.length && n < nSteps; j++) {
        const r = rows[j];
        if (opts.window_ms !== undefined && c.batches[r.b].t[r.i] - t0 > opts.window_ms) break;
        if (bits[r.b][r.i] & (1 << n)) n++;
      }
      best = Math.max(best, n);
      if (opts.window_ms === undefined) break;
    }
    for (let i = 0; i < best; i++) reached[i]++;
  };
  if (opts.by === "session") {
    forEachSession(c, (_s, _v, rows) => walk(rows.filter((r) => bits[r.b][r.i])));
  } else {
    const { rb, rk } = visitorOrder(c);
    let p = 0;
    while (p < rb.length) {
      const vis = c.batches[rb[p]].runVis[rk[p]];
      const rows: Ref[] = [];
      let runs = 0;
      for (; p < rb.length && c.batches[rb[p]].runVis[rk[p]] === vis; p++, runs++) {
        const b = rb[p], e = c.batches[b], hb = c.human[b], tr = eventView(e, "traffic").codes;
        for (let i = e.runStart[rk[p]]; i < e.runStart[rk[p] + 1]; i++) {
          if (bits[b][i] && hb[tr[i]]) rows.push({ b, i });
        }
      }
      if (rows.length === 0) continue;
      if (runs > 1) rows.sort(cmp);
      walk(rows);
    }
  }
  return {
    unit: opts.by === "session" ? "session" : "visitor",
    steps: reached.map((count, i) => ({
      index: i + 1,
      count,
      conversion_from_start: ratio(count, reached[0]),
      conversion_from_previous: i === 0 ? null : ratio(count, reached[i - 1]),
      dropped: i === 0 ? 0 : reached[i - 1] - count,
    })),
  };
}
