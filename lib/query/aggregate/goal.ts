/** Conversion goals: which visitors have a goal event in scope. */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { AggregateOptions } from "../types.ts";

/** Visitors with a goal event in scope. */
export function convertedVisitors(c: Ctx, goal: AggregateOptions["goal"]): Uint8Array | null {
  if (!goal) return null;
  const out = new Uint8Array(c.nVis);
  c.batches.forEach((e, b) => {
    const et = eventView(e, "event_type");
    const code = et.values.indexOf(goal.event_type);
    if (code < 1) return;
    const pred = compileFilters(c, b, goal.filters);
    const m = c.inScope[b];
    for (let i = 0; i < e.n; i++) if (m[i] && et.codes[i] === code && (!pred || pred(i))) out[e.vis[i]] = 1;
  });
  return out;
}
