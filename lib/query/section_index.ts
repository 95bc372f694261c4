/**
 * A side table's list of sections (per event type: section number, stored bytes, chunks, rows) is kept in the
 * table's entry. KV holds at most 64 KiB in one value, which ~450 event names of 120 characters pass, and
 * one entry too large stopped the organization's compaction for good. A long list is therefore written
 * deflated into chunks of a section of its own (INDEX_SEC, past every event type's), and the entry keeps only
 * its size; reading the entry reads the list back.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { release } from "../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../parts/store.ts";

export type Sections = Record<string, [number, number, number, number]>;

export interface IndexedEntry {
  secs: Sections;
  /** `secs` kept in chunks of section INDEX_SEC instead: their stored bytes and count */
  index?: [number, number];
}

/** The section number of a chunked list: past any event type's. */
export const INDEX_SEC = 1_000_000;
/** A list this long as JSON at most stays in the entry. */
const INLINE_CHARS = 32_000;

/**
 * Moves a long `secs` out of the entry: adds its chunks (numbered section × span + i) to `writes` and leaves
 * the entry with an empty list and the chunks' size. A short list stays.
 */
export function packSections(entry: IndexedEntry, span: number, writes: [number, Uint8Array][]): void {
  const json = JSON.stringify(entry.secs);
  if (json.length <= INLINE_CHARS) return;
  const bytes = deflateRawSync(new TextEncoder().encode(json));
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let j = 0; j < chunks; j++) {
    writes.push([INDEX_SEC * span + j, bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
  }
  entry.secs = {};
  entry.index = [bytes.length, chunks];
}

/**
 * The entry with its list read back from chunks when it was moved out (as it is otherwise); null when the
 * chunks are gone (the part went meanwhile).
 */
export async function unpackSections<E extends IndexedEntry>(
  kv: Deno.Kv,
  entry: E,
  chunkKey: (at: number) => Deno.KvKey,
  span: number,
): Promise<E | null> {
  if (!entry.index) return entry;
  const [length, chunks] = entry.index;
  const bytes = await readSectionBytes(kv, chunkKey, span, INDEX_SEC, length, chunks);
  return bytes && { ...entry, secs: JSON.parse(new TextDecoder().decode(inflateRawSync(bytes))) };
}

/**
 * One section's stored bytes (chunks numbered section × span + i, CHUNK_BYTES each), each chunk let go once
 * copied; null when a chunk is missing (the part went meanwhile) or belongs to the section written again since
 * its entry was read: one past `length`, or, given the entry's versionstamp `stamp`, written after it
 * (writers write a section's chunks, then its entry; versionstamps grow with each commit).
 */
export async function readSectionBytes(
  kv: Deno.Kv,
  chunkKey: (at: number) => Deno.KvKey,
  span: number,
  sec: number,
  length: number,
  chunks: number,
  stamp?: string,
): Promise<Uint8Array | null> {
  const bytes = new Uint8Array(length);
  let seen = 0;
  const start = chunkKey(sec * span), end = chunkKey((sec + 1) * span);
  for await (const e of kv.list<Uint8Array>({ start, end }, { batchSize: 100 })) {
    const at = ((e.key[e.key.length - 1] as number) - sec * span) * CHUNK_BYTES;
    if (at + e.value.length > length || (stamp !== undefined && e.versionstamp > stamp)) return null;
    bytes.set(e.value, at);
    release(e.value); // (copied: freed now, not at V8's next full collection)
    seen++;
  }
  return seen === chunks ? bytes : null;
}
