/**
 * Frees, at once, arrays a question decoded or made for itself alone (packed_arrays.ts `release`): every
 * whole buffer under them is detached and goes back to the allocator now, where V8 would free it only at its
 * next full collection. At 10M events a cold question's decoded sections and arrays by visitor number, held
 * until its answer, lived through young collections and waited dead for a full one while the next questions
 * ran (one engine answering every tool: the resident set ratcheted up by what each left). Only for arrays
 * nothing else holds: not a piece or section the reader keeps.
 */
import { releaseDecoded } from "../../parts/packed_arrays.ts";

/** Frees the buffers under these views (a view's whole buffer: they are decoded in place on it). */
export function releaseViews(views: Iterable<ArrayBufferView | null | undefined>): void {
  // (views sharing a buffer: the first frees it, the others find it detached)
  for (const v of views) releaseDecoded(v);
}

/**
 * Frees the buffers under a decoded object's arrays: its own values and those of objects it holds, two levels
 * deep (a section decoded as `{ n, vis, hour, …, multi: { row, code, pv } }`).
 */
export function releaseArraysOf(x: object | null | undefined): void {
  const views: ArrayBufferView[] = [];
  const walk = (o: object, depth: number) => {
    for (const v of Object.values(o)) {
      if (ArrayBuffer.isView(v)) views.push(v);
      else if (depth > 0 && v && typeof v === "object" && !Array.isArray(v)) walk(v, depth - 1);
    }
  };
  if (x) walk(x, 1);
  releaseViews(views);
}
