/**
 * Parts on KV: an index entry per part (its metadata: rows, time range, column directory) and the blob
 * in chunks under KV's 64 KiB value limit. A part is visible only once its index entry exists; chunks
 * are written before it and deleted after it is gone.
 */
import { keys } from "../store/keys.ts";
import type { EnvName } from "../store/records.ts";
import type { ColumnEntry } from "./codec.ts";
import { release } from "./packed_arrays.ts";

export type PartKind = "ev" | "hit";
export const CHUNK_BYTES = 60_000;

export interface PartMeta {
  id: string;
  kind: PartKind;
  rows: number;
  /** placement time range (events: receive time; hits: corrected timestamp) */
  min_t: number;
  max_t: number;
  /** receive-time range of the raw keys folded in */
  min_rt: number;
  max_rt: number;
  /** UTC day (of min_rt) the part belongs to, for merging small parts */
  day: number;
  chunks: number;
  bytes: number;
  /** only in entries written before the directory moved to keys.partDir; see partColumns */
  columns?: ColumnEntry[];
  /** true until the raw keys of its rows are deleted: readers skip raw keys of such parts */
  pending: boolean;
  /** hit parts: rows whose verification was still pending when the part was built */
  pending_verification: number;
  created_at: number;
}

export class PartGoneError extends Error {}

export function newPartId(now: number): string {
  const rand = crypto.getRandomValues(new Uint32Array(2));
  return `${now.toString(36).padStart(9, "0")}-${rand[0].toString(36)}${rand[1].toString(36)}`;
}

export async function writeChunks(kv: Deno.Kv, partId: string, blob: Uint8Array): Promise<number> {
  const count = Math.max(1, Math.ceil(blob.length / CHUNK_BYTES));
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < count; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(count, i + 8); j++) {
      op.set(keys.partChunk(partId, j), blob.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    writes.push(
      op.commit().then((r) => {
        if (!r.ok) throw new Error("chunk write failed");
      }),
    );
    if (writes.length >= 8) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return count;
}

export async function readBlob(
  kv: Deno.Kv,
  meta: Pick<PartMeta, "id" | "chunks" | "bytes">,
): Promise<Uint8Array> {
  const blob = new Uint8Array(meta.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: keys.partChunks(meta.id) }, { batchSize: 100 })) {
    const i = e.key[2] as number;
    blob.set(e.value, i * CHUNK_BYTES);
    release(e.value); // copied: its 60 KB go back to the allocator now (see `readRange`)
    seen++;
  }
  if (seen !== meta.chunks) throw new PartGoneError(`part ${meta.id}: ${seen} of ${meta.chunks} chunks`);
  return blob;
}

/**
 * Bytes [from, to) of a part's blob, reading only the chunks that hold them; returns the bytes from the
 * first such chunk's start (`base`), so blob offset x is at index x - base.
 */
export async function readRange(
  kv: Deno.Kv,
  meta: Pick<PartMeta, "id" | "chunks" | "bytes">,
  from: number,
  to: number,
): Promise<{ base: number; bytes: Uint8Array }> {
  const first = Math.floor(from / CHUNK_BYTES), last = Math.max(first, Math.ceil(to / CHUNK_BYTES) - 1);
  const base = first * CHUNK_BYTES;
  const bytes = new Uint8Array(Math.min(meta.bytes, (last + 1) * CHUNK_BYTES) - base);
  let seen = 0;
  const range = { start: keys.partChunk(meta.id, first), end: keys.partChunk(meta.id, last + 1) };
  for await (const e of kv.list<Uint8Array>(range, { batchSize: 100 })) {
    bytes.set(e.value, (e.key[2] as number) * CHUNK_BYTES - base);
    // copied: the chunk goes back to the allocator now, for the next chunk to reuse, instead of waiting for
    // V8's next full collection (a 1M-event month's scan read is ~37 MB of chunks, all garbage once copied)
    release(e.value);
    seen++;
  }
  const expected = Math.min(last, meta.chunks - 1) - first + 1;
  if (seen !== expected) throw new PartGoneError(`part ${meta.id}: ${seen} of ${expected} chunks`);
  return { base, bytes };
}

/** A part's column directory (read once per part load; the index entry stays small to list). */
export async function partColumns(
  kv: Deno.Kv,
  meta: Pick<PartMeta, "id" | "columns">,
): Promise<ColumnEntry[]> {
  if (meta.columns) return meta.columns;
  const dir = await kv.get<ColumnEntry[]>(keys.partDir(meta.id));
  if (!dir.value) throw new PartGoneError(`part ${meta.id}: no column directory`);
  return dir.value;
}

export async function writeDir(kv: Deno.Kv, partId: string, columns: ColumnEntry[]): Promise<void> {
  await kv.set(keys.partDir(partId), columns);
}

/**
 * Deletes a part's bytes: its directory, chunks and every table written beside it (event or hit rollup, Web
 * Vitals, property, feature and step tables), entries first: no half rollup or table is read.
 */
export async function deleteChunks(kv: Deno.Kv, partId: string): Promise<void> {
  const entries = [
    keys.partDir,
    keys.rollup,
    keys.hitRollup,
    keys.vitals,
    keys.propRollup,
    keys.featureRollup,
    keys.stepColumn,
  ];
  for (const entry of entries) await kv.delete(entry(partId));
  const chunkPrefixes = [
    keys.partChunks,
    keys.rollupChunks,
    keys.hitRollupChunks,
    keys.vitalsChunks,
    keys.propRollupChunks,
    keys.featureRollupChunks,
    keys.stepColumnChunks,
  ];
  const ks: Deno.KvKey[] = [];
  for (const prefix of chunkPrefixes) {
    for await (const e of kv.list({ prefix: prefix(partId) }, { batchSize: 100 })) ks.push(e.key);
  }
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}

/**
 * Marks a change of a kind's part index in the commit that makes it: every writer of `keys.part` calls this on
 * its atomic operation, so `indexStamp` names the index as it is (readers keep a listing while it holds).
 */
export function touchIndex(
  op: Deno.AtomicOperation,
  org: string,
  env: EnvName,
  kind: PartKind,
): Deno.AtomicOperation {
  return op.set(keys.partsVersion(org, env, kind), true);
}

/**
 * What names a kind's part index at one moment: the versionstamps of its version key (`touchIndex`) and of
 * the compaction mark (written in every publish and merge commit, also by code from before the version key:
 * an instance still running it during an upgrade). Unchanged, the index is unchanged; one small read instead
 * of listing every part (214 entries at 10M events, listed ~14 times by a warm overview).
 */
export async function indexStamp(kv: Deno.Kv, org: string, env: EnvName, kind: PartKind): Promise<string> {
  const [version, mark] = await kv.getMany([
    keys.partsVersion(org, env, kind),
    keys.compactMark(org, env, kind),
  ]);
  return `${version.versionstamp}|${mark.versionstamp}`;
}

export async function listParts(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  kind: PartKind,
): Promise<{ meta: PartMeta; versionstamp: string }[]> {
  const out: { meta: PartMeta; versionstamp: string }[] = [];
  for await (const e of kv.list<PartMeta>({ prefix: keys.parts(org, env, kind) })) {
    out.push({ meta: e.value, versionstamp: e.versionstamp });
  }
  return out;
}
