/**
 * A part's feature table on KV: a JSON header (dictionaries, hours) and the row arrays, visitor sets and
 * session triples in one aligned buffer (lib/parts/packed_arrays.ts), deflated and chunked under
 * featureKeys.chunk(part id, i); the entry featureKeys.entry(part id) = { v, bytes, rows, chunks } is written
 * last, so a table is there whole or not at all. Compaction and the generator write it beside the part's
 * other tables (part_tables.ts), older parts get one from lib/jobs/feature_rollup_backfill.ts.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { packArrays, unpackArrays } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { keys } from "../../store/keys.ts";
import type { FeatureTable } from "./build.ts";

/** 1: the first. A table of another version is rebuilt by the backfill; questions read its part meanwhile. */
export const FEATURE_ROLLUP_VERSION = 1;

export const featureKeys = {
  entry: keys.featureRollup,
  chunk: keys.featureRollupChunk,
  chunks: keys.featureRollupChunks,
};

export interface FeatureEntry {
  v: number;
  bytes: number;
  rows: number;
  chunks: number;
}

type Header = Pick<FeatureTable, "n" | "hours" | "tps" | "trs" | "texts"> & { setBytes: number; ses: number };

export function encodeFeatureTable(r: FeatureTable): Uint8Array {
  const header: Header = {
    n: r.n,
    hours: r.hours,
    tps: r.tps,
    trs: r.trs,
    texts: r.texts,
    setBytes: r.sets.byteLength,
    ses: r.sesVis.length,
  };
  const arrays: ArrayBufferView[] = [
    r.hour,
    r.action,
    r.page,
    r.element,
    r.form,
    r.events,
    r.setAt,
    r.sesAt,
    r.sesVis,
    r.sesH1,
    r.sesH2,
    r.tp,
    r.tr,
    r.rage,
    r.sets,
  ];
  return deflateRawSync(packArrays(header, arrays));
}

export function decodeFeatureTable(stored: Uint8Array): FeatureTable {
  const { header: h, next } = unpackArrays<Header>(new Uint8Array(inflateRawSync(stored)), true);
  const u32 = (n: number) => next<Uint32Array>(Uint32Array, n);
  return {
    n: h.n,
    hours: h.hours,
    tps: h.tps,
    trs: h.trs,
    texts: h.texts,
    hour: u32(h.n),
    action: u32(h.n),
    page: u32(h.n),
    element: u32(h.n),
    form: u32(h.n),
    events: u32(h.n),
    setAt: u32(h.n + 1),
    sesAt: u32(h.n + 1),
    sesVis: u32(h.ses),
    sesH1: u32(h.ses),
    sesH2: u32(h.ses),
    tp: next<Uint16Array>(Uint16Array, h.n),
    tr: next<Uint8Array>(Uint8Array, h.n),
    rage: next<Uint8Array>(Uint8Array, h.n),
    sets: next<Uint8Array>(Uint8Array, h.setBytes),
  };
}

/** Writes a part's table: chunks first, then the entry. Answers the stored bytes. */
export async function storeFeatureTable(kv: Deno.Kv, partId: string, r: FeatureTable): Promise<number> {
  await deleteFeatureTable(kv, partId); // an older version's chunks never sit among the new ones
  const bytes = encodeFeatureTable(r);
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(featureKeys.chunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("feature table chunk write failed");
  }
  const entry: FeatureEntry = { v: FEATURE_ROLLUP_VERSION, bytes: bytes.length, rows: r.n, chunks };
  await kv.set(featureKeys.entry(partId), entry);
  return bytes.length;
}

/** A part's entry of the current version, or null (none yet, or of another version). */
export async function readFeatureEntry(kv: Deno.Kv, partId: string): Promise<FeatureEntry | null> {
  const entry = (await kv.get<FeatureEntry>(featureKeys.entry(partId))).value;
  return entry && entry.v === FEATURE_ROLLUP_VERSION ? entry : null;
}

/** Whether a part has a table of the current version. */
export const hasFeatureTable = async (kv: Deno.Kv, partId: string): Promise<boolean> =>
  (await readFeatureEntry(kv, partId)) !== null;

/** A part's table by its entry, or null when its chunks are gone (the part went meanwhile). */
export async function readFeatureTable(
  kv: Deno.Kv,
  partId: string,
  entry: FeatureEntry,
): Promise<FeatureTable | null> {
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: featureKeys.chunks(partId) }, { batchSize: 100 })) {
    bytes.set(e.value, (e.key[2] as number) * CHUNK_BYTES);
    seen++;
  }
  return seen === entry.chunks ? decodeFeatureTable(bytes) : null;
}

/** Deletes a part's table: the entry first, so no half table is ever read. */
export async function deleteFeatureTable(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(featureKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: featureKeys.chunks(partId) }, { batchSize: 100 })) ks.push(e.key);
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
