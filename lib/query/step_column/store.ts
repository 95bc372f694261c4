/**
 * A part's step column on KV: one section per event type, each a JSON header (dictionaries, how its numbers
 * are kept) and its arrays in one aligned buffer (parts/packed_arrays.ts), deflated and chunked under
 * stepColumnKeys.chunk(part id, section × 10,000 + i). The entry { v, bytes, rows, secs } is written last, so
 * a column is there whole or not at all. Compaction writes it beside the part's other tables, deleting a part
 * deletes it, and older parts get one from lib/jobs/step_column_backfill.ts.
 *
 * Stored compactly: visitor numbers as differences from the row before, receive times as differences from
 * the visitor's row before (its first from the section's least time), device times as their difference from
 * the receive time, rows' places in the part's batch as differences, each as 32-bit integers when they all fit (else the 64-bit floats themselves).
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { packArrays, unpackArrays } from "../../parts/packed_arrays.ts";
import type { Batch } from "../../parts/columns.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import type { EnvName } from "../../store/records.ts";
import { readMany } from "../../store/read_many.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { buildStepColumn, type StepSection } from "./build.ts";

/** A column of another version is rebuilt by the backfill; questions stream those parts meanwhile. */
export const STEP_COLUMN_VERSION = 1;

/** KV keys of step columns (to move to lib/store/keys.ts beside the other per-part tables). */
export const stepColumnKeys = {
  entry: (partId: string) => ["step_col", partId] as const,
  chunk: (partId: string, index: number) => ["step_col_chunk", partId, index] as const,
  chunks: (partId: string) => ["step_col_chunk", partId] as const,
};

export interface StepColumnEntry {
  v: number;
  /** stored bytes of all sections */
  bytes: number;
  rows: number;
  /** per event type (secName): section number, stored bytes, chunks, rows */
  secs: Record<string, [number, number, number, number]>;
}

/** A section's name for an event type (null has one too). */
export const secName = (et: string | null): string => et ?? "\u0000null";

const SEC_SPAN = 10_000;

interface Header {
  et: string | null;
  n: number;
  pages: (string | null)[];
  tps: (string | null)[];
  trs: (string | null)[];
  sessions: number;
  base: number;
  /** 1: kept as Int32 (else Float64) */
  tInt: 0 | 1;
  dtInt: 0 | 1;
  seqInt: 0 | 1;
}

const INT32 = (x: number) => Number.isInteger(x) && x >= -2147483648 && x <= 2147483647;

export function encodeSection(s: StepSection): Uint8Array {
  const n = s.n;
  let base = Infinity;
  for (let k = 0; k < n; k++) if (s.t[k] < base) base = s.t[k];
  if (!Number.isFinite(base)) base = 0;
  const dv = new Uint32Array(n),
    dRow = new Int32Array(n),
    dtT = new Float64Array(n),
    dOff = new Float64Array(n);
  let tInt: 0 | 1 = 1, dtInt: 0 | 1 = 1, seqInt: 0 | 1 = 1;
  for (let k = 0; k < n; k++) {
    dv[k] = k === 0 ? s.vis[0] : s.vis[k] - s.vis[k - 1];
    dRow[k] = k === 0 ? s.row[0] : s.row[k] - s.row[k - 1];
    dtT[k] = s.t[k] - (k > 0 && s.vis[k] === s.vis[k - 1] ? s.t[k - 1] : base);
    dOff[k] = s.dt[k] - s.t[k];
    if (!INT32(dtT[k])) tInt = 0;
    if (!INT32(dOff[k])) dtInt = 0;
    if (!(Number.isInteger(s.seq[k]) && s.seq[k] >= 0 && s.seq[k] < 2 ** 32)) seqInt = 0;
  }
  const header: Header = {
    et: s.et,
    n,
    pages: s.pages,
    tps: s.tps,
    trs: s.trs,
    sessions: s.h1.length,
    base,
    tInt,
    dtInt,
    seqInt,
  };
  const arrays: ArrayBufferView[] = [
    dv,
    // floats are kept as they are: a difference of floats added back need not give the same float
    tInt ? Int32Array.from(dtT) : s.t,
    dtInt ? Int32Array.from(dOff) : s.dt,
    seqInt ? Uint32Array.from(s.seq) : s.seq,
    s.page,
    s.tp,
    s.tr,
    dRow,
    s.ses,
    s.h1,
    s.h2,
  ];
  return deflateRawSync(packArrays(header, arrays));
}

export function decodeSection(stored: Uint8Array): StepSection {
  const { header: h, next } = unpackArrays<Header>(new Uint8Array(inflateRawSync(stored)), true);
  const n = h.n;
  const dv = next<Uint32Array>(Uint32Array, n);
  const dtT = h.tInt ? next<Int32Array>(Int32Array, n) : next<Float64Array>(Float64Array, n);
  const dOff = h.dtInt ? next<Int32Array>(Int32Array, n) : next<Float64Array>(Float64Array, n);
  const seqIn = h.seqInt ? next<Uint32Array>(Uint32Array, n) : next<Float64Array>(Float64Array, n);
  const vis = new Uint32Array(n), t = new Float64Array(n), dt = new Float64Array(n);
  let v = 0, prev = h.base;
  for (let k = 0; k < n; k++) {
    const same = k > 0 && dv[k] === 0;
    v = k === 0 ? dv[0] : v + dv[k];
    vis[k] = v;
    prev = t[k] = h.tInt ? (same ? prev : h.base) + dtT[k] : dtT[k];
    dt[k] = h.dtInt ? t[k] + dOff[k] : dOff[k];
  }
  return {
    et: h.et,
    n,
    pages: h.pages,
    tps: h.tps,
    trs: h.trs,
    vis,
    t,
    dt,
    seq: seqIn instanceof Float64Array ? seqIn : Float64Array.from(seqIn),
    page: next<Uint32Array>(Uint32Array, n),
    tp: next<Uint16Array>(Uint16Array, n),
    tr: next<Uint8Array>(Uint8Array, n),
    row: rowsFrom(next<Int32Array>(Int32Array, n)),
    ses: next<Uint32Array>(Uint32Array, n),
    h1: next<Uint32Array>(Uint32Array, h.sessions),
    h2: next<Uint32Array>(Uint32Array, h.sessions),
  };
}

/** Row places from their differences. */
function rowsFrom(d: Int32Array): Uint32Array {
  const out = new Uint32Array(d.length);
  let r = 0;
  for (let k = 0; k < d.length; k++) out[k] = r += d[k];
  return out;
}

/** Writes a part's column: chunks first, then the entry. Answers the stored bytes. */
export async function storeStepColumn(kv: Deno.Kv, partId: string, secs: StepSection[]): Promise<number> {
  await deleteStepColumn(kv, partId); // an older version's chunks never sit among the new ones
  const entry: StepColumnEntry = { v: STEP_COLUMN_VERSION, bytes: 0, rows: 0, secs: {} };
  const writes: [number, Uint8Array][] = [];
  secs.forEach((s, sec) => {
    const bytes = encodeSection(s);
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= SEC_SPAN) throw new Error(`step column section of ${partId} is too large`);
    entry.secs[secName(s.et)] = [sec, bytes.length, chunks, s.n];
    for (let j = 0; j < chunks; j++) {
      writes.push([sec * SEC_SPAN + j, bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
    }
    entry.bytes += bytes.length;
    entry.rows += s.n;
  });
  for (let i = 0; i < writes.length; i += 8) {
    const op = kv.atomic();
    for (const [at, bytes] of writes.slice(i, i + 8)) op.set(stepColumnKeys.chunk(partId, at), bytes);
    if (!(await op.commit()).ok) throw new Error("step column chunk write failed");
  }
  await kv.set(stepColumnKeys.entry(partId), entry);
  return entry.bytes;
}

/**
 * Compaction's entry point (beside the part's rollups): builds the column of the part's batch, `visitorOf`
 * giving each row's permanent visitor number (numbered if not given), and writes it. Answers stored bytes.
 */
export async function writeStepColumn(
  kv: Deno.Kv,
  partId: string,
  batch: Batch,
  org: string,
  env: EnvName,
  visitorOf?: (row: number) => number,
): Promise<number> {
  if (!visitorOf) {
    const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch)));
    visitorOf = (i) => rows[i];
  }
  return await storeStepColumn(kv, partId, buildStepColumn(batch, visitorOf));
}

/** Entries of the current version per part id, null where a part has none (yet, or of another version). */
export async function readStepEntries(kv: Deno.Kv, partIds: string[]): Promise<(StepColumnEntry | null)[]> {
  const got = await readMany<StepColumnEntry>(kv, partIds.map(stepColumnKeys.entry));
  return got.map((g) => (g.value && g.value.v === STEP_COLUMN_VERSION ? g.value : null));
}

/** Whether a part has a column of the current version. */
export async function hasStepColumn(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await readStepEntries(kv, [partId]))[0] !== null;
}

/**
 * One event type's section of a part's column: null when the part has no rows of that type, undefined when
 * its chunks are gone (the part went meanwhile: the caller answers otherwise).
 */
export async function readStepSection(
  kv: Deno.Kv,
  partId: string,
  entry: StepColumnEntry,
  name: string,
): Promise<{ section: StepSection; stored: number } | null | undefined> {
  const size = entry.secs[name];
  if (!size) return null;
  const [sec, length, chunks] = size;
  const ks = Array.from({ length: chunks }, (_, j) => stepColumnKeys.chunk(partId, sec * SEC_SPAN + j));
  const got = await readMany<Uint8Array>(kv, ks);
  if (got.some((g) => g.value === null)) return undefined;
  const bytes = new Uint8Array(length);
  got.forEach((g, j) => bytes.set(g.value!, j * CHUNK_BYTES));
  return { section: decodeSection(bytes), stored: length };
}

/** Deletes a part's column: the entry first, so no half column is ever read. */
export async function deleteStepColumn(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(stepColumnKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: stepColumnKeys.chunks(partId) }, { batchSize: 100 })) {
    ks.push(e.key);
  }
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
