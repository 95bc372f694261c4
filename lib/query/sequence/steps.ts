/** Funnel and path steps: which rows in scope match each step (an event type and its conditions). */
import { eventView } from "../columns/views.ts";
import type { Ctx } from "../scan/ctx.ts";
import { compileFilters } from "../scan/filters.ts";
import type { StepDef } from "../sequence_types.ts";

/** Per batch and row: bit k set when the row (in scope) matches step k. One pass over the rows per batch. */
export function stepBits(c: Ctx, steps: StepDef[]): Uint8Array[] {
  return c.batches.map((e, b) => {
    const out = new Uint8Array(e.n);
    const et = eventView(e, "event_type");
    // per event type code: the steps of that type; per step: its conditions (null: none)
    const byCode = new Uint8Array(et.values.length);
    steps.forEach((st, k) => {
      const code = et.values.indexOf(st.event_type);
      if (code >= 1) byCode[code] |= 1 << k;
    });
    const preds = steps.map((st) => compileFilters(c, b, st.filters));
    const m = c.inScope[b], codes = et.codes;
    for (let i = 0; i < e.n; i++) {
      const cand = byCode[codes[i]];
      if (!cand || !m[i]) continue;
      let set = 0;
      for (let k = 0; k < steps.length; k++) {
        if (cand & (1 << k) && (preds[k] === null || preds[k]!(i))) set |= 1 << k;
      }
      out[i] = set;
    }
    return out;
  });
}
