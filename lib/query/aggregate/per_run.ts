/**
 * Per-run arrays in visitor order (run figures, run states under a question's masks, a field's value per
 * run): contiguous, so the passes read them front to back. Over the parts they are kept across questions;
 * a raw tail's runs are placed by the order's `from` map.
 */
import { remember } from "../../lru.ts";
import type { EvBatch } from "../columns/batch.ts";
import { fullRuns } from "../columns/runs.ts";
import { runValue } from "../columns/row_ids.ts";
import type { Ctx } from "../scan/ctx.ts";
import { visitorOrder } from "../scan/visitor_order.ts";
import type { EventField } from "../types.ts";

/** Session-run figures in visitor order: visitor, session, rows, pageviews, human rows. */
export interface RunColumns {
  vis: Uint32Array;
  ses: Uint32Array;
  rows: Uint32Array;
  pv: Uint32Array;
  human: Uint32Array;
}

type PerRun = Int32Array | Uint32Array | Uint8Array;

/**
 * A per-run array in visitor order. Over the parts it is kept (under key) across questions; with a raw tail
 * the parts' array is reused and the tail's runs are placed by the order's `from` map.
 */
function perRun<T extends PerRun>(
  c: Ctx,
  key: string | null,
  make: (rb: Int32Array, rk: Int32Array) => T,
): T {
  const order = visitorOrder(c), memo = c.memo, kept = key === null ? undefined : memo?.perRun;
  const base = c.tail ? memo?.order : order;
  if (!base || (c.tail && !order.from)) return make(order.rb, order.rk);
  let partsArray = kept?.get(key!) as T | undefined;
  if (!partsArray) {
    partsArray = make(base.rb, base.rk);
    if (kept) {
      remember(kept, key!, partsArray, 24);
    }
  }
  if (!c.tail) return partsArray;
  const tail = c.batches.length - 1, tailRuns = c.batches[tail].runSes.length;
  const tailArray = make(
    new Int32Array(tailRuns).fill(tail),
    Int32Array.from({ length: tailRuns }, (_, k) => k),
  );
  const from = order.from!;
  const out = new (partsArray.constructor as { new (n: number): T })(from.length);
  for (let p = 0; p < from.length; p++) out[p] = from[p] >= 0 ? partsArray[from[p]] : tailArray[-from[p] - 1];
  return out;
}

/** Session-run figures in visitor order. */
export function runColumns(c: Ctx): RunColumns {
  const column = (name: string, of: (e: EvBatch, k: number) => number) =>
    perRun(c, `run:${name}`, (rb, rk) => {
      const out = new Uint32Array(rb.length);
      for (let q = 0; q < out.length; q++) out[q] = of(c.batches[rb[q]], rk[q]);
      return out;
    });
  return {
    vis: column("vis", (e, k) => e.runVis[k]),
    ses: column("ses", (e, k) => e.runSes[k]),
    rows: column("rows", (e, k) => e.runStart[k + 1] - e.runStart[k]),
    pv: column("pv", (e, k) => e.runPv[k]),
    human: column("human", (e, k) => e.runHuman[k]),
  };
}

/** Each run's state under the masks, in visitor order (kept per scope and filters). */
export function runStates(c: Ctx, masks: Uint8Array[]): Uint8Array {
  const sessionLevel = c.scope.filters?.some((f) => f.field === "entry_page" || f.field === "exit_page");
  const key = sessionLevel ? null : `state:${c.scopeKey}#${JSON.stringify(c.scope.filters ?? [])}`;
  const full = c.batches.map((e, b) => fullRuns(e, masks[b]));
  return perRun(c, key, (rb, rk) => {
    const out = new Uint8Array(rb.length);
    for (let q = 0; q < out.length; q++) out[q] = full[rb[q]][rk[q]];
    return out;
  });
}

/** A field's value number per run in visitor order, -1 where it varies inside the run. */
export function runValuesInOrder(c: Ctx, field: EventField): Int32Array {
  const per = c.batches.map((e) => runValue(e, field));
  return perRun(c, `value:${field}`, (rb, rk) => {
    const out = new Int32Array(rb.length);
    for (let q = 0; q < out.length; q++) out[q] = per[rb[q]][rk[q]];
    return out;
  });
}
