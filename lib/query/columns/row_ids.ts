/**
 * Each row's value of a field as a process-wide number (the interner's numbering of that field), so a
 * group number means one value in every batch; and per session run, the value when it is constant.
 */
import { remember } from "../../lru.ts";
import type { EvBatch } from "./batch.ts";
import { eventView } from "./views.ts";

/** Each row's value of a field as its process-wide number (interner.valueIds(field)); cached per batch. */
export function fieldIds(e: EvBatch, field: string): Int32Array {
  let ids = e.ids.get(field);
  if (ids) return ids;
  const v = eventView(e, field), numbering = e.interner.valueIds(field);
  const byCode = Int32Array.from(v.values, (s) => numbering.id(s));
  ids = new Int32Array(e.n);
  if (!v.codes.length) ids.fill(byCode[0]);
  else mapCodes(v.codes, byCode, ids);
  keepIds(e, field, ids);
  return ids;
}

/** Per-row numbers of the fields questions use, a bounded few per batch (the cache counts ~4 of them). */
export function keepIds(e: EvBatch, key: string, ids: Int32Array) {
  remember(e.ids, key, ids, 8);
}

/** Per session run: the field's value number when every row of the run has the same one, else -1. */
export function runValue(e: EvBatch, field: string): Int32Array {
  const key = `run:${field}`;
  let out = e.ids.get(key);
  if (out) return out;
  const ids = fieldIds(e, field), starts = e.runStart;
  out = new Int32Array(e.runSes.length);
  for (let k = 0; k < out.length; k++) {
    const g = ids[starts[k]];
    let i = starts[k] + 1;
    while (i < starts[k + 1] && ids[i] === g) i++;
    out[k] = i === starts[k + 1] ? g : -1;
  }
  keepIds(e, key, out);
  return out;
}

function mapCodes(codes: ArrayLike<number>, byCode: Int32Array, ids: Int32Array) {
  for (let i = 0; i < ids.length; i++) ids[i] = byCode[codes[i]];
}
