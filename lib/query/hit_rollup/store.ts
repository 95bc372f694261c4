/**
 * A hit part's rollup on KV: one JSON header (dictionaries, pending ids) and the row arrays in one aligned
 * buffer, then (version 2) the same rows with their hours merged (`mergeHours`, computed when written
 * instead of at every decode), deflated and chunked under keys.hitRollupChunk(part id, i); the entry
 * keys.hitRollup(part id) = { v, bytes, chunks, raw } is written last, so a rollup is there whole or not at
 * all. Compaction writes it under the part's building mark, deleteChunks (lib/parts/store.ts) deletes it
 * with the part, and parts from before hit rollups get one from lib/jobs/hit_rollup_backfill.ts.
 */
import { deflateRawSync } from "node:zlib";
import { type ArrayKind, inflateArrays, packArrays } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { keys } from "../../store/keys.ts";
import { type Codes, DIMS, type HitRollup, mergeHours } from "./build.ts";

/**
 * 1: hourly rows only. 2: and the hours-merged rows after them. The backfill turns a version 1 rollup into
 * version 2 from the stored rollup itself; until then questions read version 1 and merge its hours when
 * decoding it. Any other version is rebuilt from its part by the backfill, questions scanning the part meanwhile.
 */
export const HIT_ROLLUP_VERSION = 2;
const READABLE = new Set([1, 2]);

export interface HitRollupEntry {
  v: number;
  bytes: number;
  chunks: number;
  /** the inflated size (since version 2): inflating into one buffer of it is 3-4x faster than in 16 kB steps */
  raw?: number;
}

interface Header {
  n: number;
  base: number;
  hour0: number;
  hours: number;
  dicts: string[][];
  /** bytes per element of each field's codes */
  widths: number[];
  wide: boolean;
  pendId: string[];
  /** version 2: the hours-merged rows' count and each field's code width (they share dicts, base, pendId) */
  whole?: { n: number; widths: number[] };
}

/** A decoded rollup: its hourly rows and, from version 2 on, its hours-merged rows. */
export interface StoredHitRollup {
  r: HitRollup;
  whole: HitRollup | null;
}

/** The stored layout, deflated: with `whole` (mergeHours(r)) version 2, without it version 1. */
export function encodeHitRollup(r: HitRollup, whole: HitRollup | null): Uint8Array {
  return deflateRawSync(layout(r, whole));
}

function layout(r: HitRollup, whole: HitRollup | null): Uint8Array {
  const header: Header = {
    n: r.n,
    base: r.base,
    hour0: r.hour0,
    hours: r.hours,
    dicts: r.dicts,
    widths: r.codes.map((c) => c.BYTES_PER_ELEMENT),
    wide: r.minT instanceof Float64Array,
    pendId: r.pendId,
  };
  // widest first, so each array starts aligned
  const arrays: ArrayBufferView[] = [r.minT, r.maxT, r.requests, r.pendRow, r.hour, ...r.codes];
  if (whole) {
    header.whole = { n: whole.n, widths: whole.codes.map((c) => c.BYTES_PER_ELEMENT) };
    // every merged row's hour is 0: not stored
    arrays.push(whole.minT, whole.maxT, whole.requests, whole.pendRow, ...whole.codes);
  }
  return packArrays(header, arrays);
}

const BY_WIDTH: Record<number, ArrayKind> = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array };

/** A stored rollup decoded; `raw`, its inflated size when known, lets it inflate in one step. */
export function decodeHitRollup(stored: Uint8Array, raw?: number): StoredHitRollup {
  const { header: h, next } = inflateArrays<Header>(stored, raw);
  const T = h.wide ? Float64Array : Uint32Array;
  const minT = next<Uint32Array | Float64Array>(T, h.n), maxT = next<Uint32Array | Float64Array>(T, h.n);
  const requests = next<Uint32Array>(Uint32Array, h.n);
  const pendRow = next<Uint32Array>(Uint32Array, h.pendId.length);
  const hour = next<Uint16Array>(Uint16Array, h.n);
  const codes = DIMS.map((_, d) => next<Codes>(BY_WIDTH[h.widths[d]], h.n));
  const r: HitRollup = {
    n: h.n,
    base: h.base,
    hour0: h.hour0,
    hours: h.hours,
    dicts: h.dicts,
    codes,
    hour,
    requests,
    minT,
    maxT,
    pendRow,
    pendId: h.pendId,
  };
  if (!h.whole) return { r, whole: null };
  const n = h.whole.n;
  const wMinT = next<Uint32Array | Float64Array>(T, n), wMaxT = next<Uint32Array | Float64Array>(T, n);
  const wRequests = next<Uint32Array>(Uint32Array, n);
  const wPendRow = next<Uint32Array>(Uint32Array, h.pendId.length);
  const widths = h.whole.widths;
  const wCodes = DIMS.map((_, d) => next<Codes>(BY_WIDTH[widths[d]], n));
  const whole: HitRollup = {
    ...r,
    n,
    hours: 1,
    codes: wCodes,
    hour: new Uint16Array(n),
    requests: wRequests,
    minT: wMinT,
    maxT: wMaxT,
    pendRow: wPendRow,
  };
  return { r, whole };
}

/**
 * Writes a part's rollup (one it has none of): chunks first, then the entry. Answers the stored bytes.
 * `whole` null writes version 1 (hourly rows only: how older deployments stored it; tests).
 */
export async function writeHitRollup(
  kv: Deno.Kv,
  partId: string,
  r: HitRollup,
  whole: HitRollup | null = mergeHours(r),
): Promise<number> {
  const plain = layout(r, whole);
  const bytes = deflateRawSync(plain);
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(keys.hitRollupChunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("hit rollup chunk write failed");
  }
  const entry: HitRollupEntry = whole
    ? { v: HIT_ROLLUP_VERSION, bytes: bytes.length, chunks, raw: plain.length }
    : { v: 1, bytes: bytes.length, chunks };
  await kv.set(keys.hitRollup(partId), entry);
  return bytes.length;
}

/** Whether a part has a rollup of the current version. */
export async function hasHitRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v === HIT_ROLLUP_VERSION;
}

/** The version of a part's rollup entry (null: none). */
export async function hitRollupVersion(kv: Deno.Kv, partId: string): Promise<number | null> {
  return (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v ?? null;
}

/**
 * A part's rollup (version 1 or 2: `whole` null for version 1) and its stored bytes, or null when it has none
 * readable (or it went, or was rewritten, meanwhile: the entry is read again after the chunks, and the
 * backfill deletes it before it touches them).
 */
export async function readHitRollup(
  kv: Deno.Kv,
  partId: string,
): Promise<(StoredHitRollup & { stored: number; v: number }) | null> {
  const got = await kv.get<HitRollupEntry>(keys.hitRollup(partId));
  const entry = got.value;
  if (!entry || !READABLE.has(entry.v)) return null;
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: keys.hitRollupChunks(partId) }, { batchSize: 100 })) {
    const at = (e.key[2] as number) * CHUNK_BYTES;
    if (at + e.value.length > bytes.length) return null;
    bytes.set(e.value, at);
    seen++;
  }
  if (seen !== entry.chunks) return null;
  if ((await kv.get(keys.hitRollup(partId))).versionstamp !== got.versionstamp) return null;
  return { ...decodeHitRollup(bytes, entry.raw), stored: entry.bytes, v: entry.v };
}

/** Deletes a part's rollup: the entry first, so no half rollup is ever read. */
export async function deleteHitRollup(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(keys.hitRollup(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: keys.hitRollupChunks(partId) }, { batchSize: 100 })) ks.push(e.key);
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
