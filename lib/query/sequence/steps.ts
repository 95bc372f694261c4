/** Funnel and path steps: which rows in scope match each step (an event type and its conditions). */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { StepDef } from "../types.ts";

/** Per batch and row: bit k set when the row (in scope) matches step k. */
export function stepBits(c: Ctx, steps: StepDef[]): Uint8Array[] {
  return c.batches.map((e, b) => {
    const out = new Uint8Array(e.n);
    const et = eventView(e, "event_type");
    steps.forEach((st, k) => {
      const code = et.values.indexOf(st.event_type);
      if (code < 1) return;
      const pred = compileFilters(c, b, st.filters);
      const m = c.inScope[b];
      for (let i = 0; i < e.n; i++) if (m[i] && et.codes[i] === code && (!pred || pred(i))) out[i] |= 1 << k;
    });
    return out;
  });
}
