/**
 * The typed-array loops of the group-by: a row's time bucket, a row's group from small keys (a dense
 * key → group table), and the row ranges of the session runs that have a matching row.
 */
import { bucketer, bucketsBetween } from "../../time/buckets.ts";
import { SLOT_MS as SLOT } from "../../time/zone.ts";
import type { EvBatch } from "../columns/batch.ts";
import { fullRuns, NO_ROWS } from "../columns/runs.ts";
import type { Ctx } from "../scan/ctx.ts";
import type { AggregateOptions } from "../types.ts";

/** Bucket number of every 15-minute slot of the scope (all bucket edges fall on such slots). */
export function bucketTable(c: Ctx, bucket: NonNullable<AggregateOptions["bucket"]>) {
  const of = bucketer(bucket, c.scope.timezone);
  const labels = bucketsBetween(c.scope.from, c.scope.to, bucket, c.scope.timezone).map((b) => b.label);
  const index = new Map(labels.map((l, i) => [l, i]));
  const slot0 = Math.floor(c.scope.from / SLOT);
  const table = new Int32Array(Math.floor((c.scope.to - 1) / SLOT) - slot0 + 1);
  for (let k = 0; k < table.length; k++) {
    table[k] = index.get(of(Math.max(c.scope.from, (slot0 + k) * SLOT)))!;
  }
  return { labels, table, slot0 };
}

export function bucketIds(t: Float64Array, m: Uint8Array, table: Int32Array, slot0: number, ids: Int32Array) {
  for (let i = 0; i < t.length; i++) if (m[i]) ids[i] = table[Math.floor(t[i] / SLOT) - slot0];
}

/** Groups of matching rows whose group key is a small number: a dense key → group table. */
export function denseGroups(
  m: Uint8Array,
  ranges: Int32Array,
  keyOf: Int32Array | null,
  table: Int32Array,
  out: Int32Array,
  fresh: (key: number, i: number) => number,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (!m[i]) continue;
      const key = keyOf === null ? 0 : keyOf[i];
      let g = table[key];
      if (g < 0) g = table[key] = fresh(key, i);
      out[i] = g;
    }
  }
}

/** denseGroups for two dimensions (a field and a bucket): key = a * width + z, for matching rows only. */
export function denseGroups2(
  m: Uint8Array,
  ranges: Int32Array,
  a: Int32Array,
  z: Int32Array,
  width: number,
  table: Int32Array,
  out: Int32Array,
  fresh: (i: number) => number,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (!m[i]) continue;
      const key = a[i] * width + z[i];
      let g = table[key];
      if (g < 0) g = table[key] = fresh(i);
      out[i] = g;
    }
  }
}

/** Row ranges [r[2j], r[2j+1]) covering every session run of the batch with a matching row. */
export function matchingRanges(e: EvBatch, m: Uint8Array): Int32Array {
  const states = fullRuns(e, m), out: number[] = [];
  for (let k = 0; k < states.length; k++) {
    if (states[k] === NO_ROWS) continue;
    if (out.length && out[out.length - 1] === e.runStart[k]) out[out.length - 1] = e.runStart[k + 1];
    else out.push(e.runStart[k], e.runStart[k + 1]);
  }
  return Int32Array.from(out);
}

/** Group = value number * buckets + bucket, for the matching rows of the ranges. */
export function stableIds(
  m: Uint8Array,
  ranges: Int32Array,
  ids: Int32Array | null,
  buckets: Int32Array,
  width: number,
  out: Int32Array,
) {
  for (let j = 0; j < ranges.length; j += 2) {
    for (let i = ranges[j]; i < ranges[j + 1]; i++) {
      if (m[i]) out[i] = (ids === null ? 0 : ids[i] * width) + buckets[i];
    }
  }
}
