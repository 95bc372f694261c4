/**
 * A hit part's rollup on KV, deflated and chunked under keys.hitRollupChunk(part id, i); the entry
 * keys.hitRollup(part id) is written last, so a rollup is there whole or not at all. Version 3 stores two
 * sections: the head (one JSON header with the dictionaries and pending ids, each hour's time range, and the
 * rows with their hours merged, `mergeHours`) in the first chunks, then the hourly rows. A question taking a
 * part whole (most parts of a long period) reads and inflates the head only; the hourly rows are read when
 * the period cuts the part or a bucket splits it. Versions 1 (hourly rows only) and 2 (one blob: hourly rows,
 * then the merged ones) are still read whole. Compaction writes it under the part's building mark,
 * deleteChunks (lib/parts/store.ts) deletes it with the part, and parts from before hit rollups (or of an older
 * version) get one from lib/jobs/hit_rollup_backfill.ts.
 */
import { deflateRawSync } from "node:zlib";
import { type ArrayKind, inflateArrays, packArrays, release } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { keys } from "../../store/keys.ts";
import { hourSpans } from "./answer.ts";
import { type Codes, DIMS, type HitRollup, mergeHours } from "./build.ts";

/**
 * 1: hourly rows only. 2: and the hours-merged rows after them, one blob. 3: the head (merged rows, hour
 * ranges) and the hourly rows as two sections, so a part taken whole is read without its hourly rows (at the
 * 10M-event site they are 4/5 of the bytes). The backfill turns a version 1 rollup into the current one from
 * the stored rollup itself; older versions are still read meanwhile. Any other version is rebuilt from its
 * part by the backfill, questions scanning the part meanwhile.
 */
export const HIT_ROLLUP_VERSION = 3;
const READABLE = new Set([1, 2, 3]);

export interface HitRollupEntry {
  v: number;
  /** the stored bytes (version 3: of the hourly section) */
  bytes: number;
  /** chunks in all (version 3: the head's first) */
  chunks: number;
  /** the inflated size (since version 2): inflating into one buffer of it is 3-4x faster than in 16 kB steps */
  raw?: number;
  /** version 3: the head section's stored and inflated bytes and its chunks */
  head?: { bytes: number; chunks: number; raw: number };
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
  /** version 2 and 3: the hours-merged rows' count and each field's code width (they share dicts, base, pendId) */
  whole?: { n: number; widths: number[] };
}

/** A decoded rollup: its hourly rows and, from version 2 on, its hours-merged rows. */
export interface StoredHitRollup {
  r: HitRollup;
  whole: HitRollup | null;
}

/** What a question needs of a rollup before it knows which rows it takes: the merged rows, the hours' ranges. */
export interface HitRollupHead {
  whole: HitRollup;
  /** each hour offset's first and last hit time (NaN: no row) */
  spans: { min: Float64Array; max: Float64Array };
  hour0: number;
  hours: number;
  /** the hourly rows when they were read with the head (versions 1 and 2), else null: `readHitRollupHours` */
  r: HitRollup | null;
  /** the entry's versionstamp: the hourly rows read later must belong to the same rollup */
  stamp: string;
  /** version 3: the stored header (the hourly rows' count and code widths; dictionaries and ids they share) */
  header?: Header;
}

/** The stored layout of versions 1 and 2, deflated: with `whole` (mergeHours(r)) version 2, without it 1. */
export function encodeHitRollup(r: HitRollup, whole: HitRollup | null): Uint8Array {
  return deflateRawSync(layout(r, whole));
}

function headerOf(r: HitRollup, whole: HitRollup | null): Header {
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
  if (whole) header.whole = { n: whole.n, widths: whole.codes.map((c) => c.BYTES_PER_ELEMENT) };
  return header;
}

const hourlyArrays = (
  r: HitRollup,
): ArrayBufferView[] => [r.minT, r.maxT, r.requests, r.pendRow, r.hour, ...r.codes];
// every merged row's hour is 0: not stored
const wholeArrays = (w: HitRollup): ArrayBufferView[] => [w.minT, w.maxT, w.requests, w.pendRow, ...w.codes];

function layout(r: HitRollup, whole: HitRollup | null): Uint8Array {
  // widest first, so each array starts aligned
  return packArrays(headerOf(r, whole), [...hourlyArrays(r), ...(whole ? wholeArrays(whole) : [])]);
}

const BY_WIDTH: Record<number, ArrayKind> = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array };
type Next = <T>(T: ArrayKind, n: number) => T;

function readHourly(h: Header, next: Next): HitRollup {
  const T = h.wide ? Float64Array : Uint32Array;
  const minT = next<Uint32Array | Float64Array>(T, h.n), maxT = next<Uint32Array | Float64Array>(T, h.n);
  const requests = next<Uint32Array>(Uint32Array, h.n);
  const pendRow = next<Uint32Array>(Uint32Array, h.pendId.length);
  const hour = next<Uint16Array>(Uint16Array, h.n);
  const codes = DIMS.map((_, d) => next<Codes>(BY_WIDTH[h.widths[d]], h.n));
  const { n, base, hour0, hours, dicts, pendId } = h;
  return { n, base, hour0, hours, dicts, codes, hour, requests, minT, maxT, pendRow, pendId };
}

function readWhole(h: Header, next: Next): HitRollup {
  const T = h.wide ? Float64Array : Uint32Array;
  const n = h.whole!.n, widths = h.whole!.widths;
  const minT = next<Uint32Array | Float64Array>(T, n), maxT = next<Uint32Array | Float64Array>(T, n);
  const requests = next<Uint32Array>(Uint32Array, n);
  const pendRow = next<Uint32Array>(Uint32Array, h.pendId.length);
  const codes = DIMS.map((_, d) => next<Codes>(BY_WIDTH[widths[d]], n));
  const { base, hour0, dicts, pendId } = h;
  return {
    n,
    base,
    hour0,
    hours: 1,
    dicts,
    codes,
    hour: new Uint16Array(n),
    requests,
    minT,
    maxT,
    pendRow,
    pendId,
  };
}

/** A stored version 1 or 2 rollup decoded; `raw`, its inflated size when known, lets it inflate in one step. */
export function decodeHitRollup(stored: Uint8Array, raw?: number): StoredHitRollup {
  const { header: h, next } = inflateArrays<Header>(stored, raw);
  const r = readHourly(h, next);
  return { r, whole: h.whole ? readWhole(h, next) : null };
}

/** Version 3's two sections, deflated: the head (header, hour ranges, merged rows) and the hourly rows. */
function sectionsOf(r: HitRollup, whole: HitRollup): { head: Uint8Array; hourly: Uint8Array; raw: number[] } {
  const spans = hourSpans(r);
  const head = packArrays(headerOf(r, whole), [spans.min, spans.max, ...wholeArrays(whole)]);
  const hourly = packArrays({ n: r.n }, hourlyArrays(r));
  return { head: deflateRawSync(head), hourly: deflateRawSync(hourly), raw: [head.length, hourly.length] };
}

async function writeChunks(kv: Deno.Kv, partId: string, bytes: Uint8Array, first: number): Promise<number> {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(keys.hitRollupChunk(partId, first + j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("hit rollup chunk write failed");
  }
  return chunks;
}

/**
 * Writes a part's rollup (one it has none of): chunks first, then the entry. Answers the stored bytes.
 * `whole` null writes version 1 (hourly rows only), `v` 2 one blob: what older deployments stored (tests).
 */
export async function writeHitRollup(
  kv: Deno.Kv,
  partId: string,
  r: HitRollup,
  whole: HitRollup | null = mergeHours(r),
  v: 2 | 3 = HIT_ROLLUP_VERSION,
): Promise<number> {
  let entry: HitRollupEntry;
  if (whole && v === 3) {
    const { head, hourly, raw } = sectionsOf(r, whole);
    const headChunks = await writeChunks(kv, partId, head, 0);
    const chunks = headChunks + await writeChunks(kv, partId, hourly, headChunks);
    entry = {
      v,
      bytes: hourly.length,
      chunks,
      raw: raw[1],
      head: { bytes: head.length, chunks: headChunks, raw: raw[0] },
    };
  } else {
    const plain = layout(r, whole);
    const bytes = deflateRawSync(plain);
    const chunks = await writeChunks(kv, partId, bytes, 0);
    entry = whole
      ? { v: 2, bytes: bytes.length, chunks, raw: plain.length }
      : { v: 1, bytes: bytes.length, chunks };
  }
  await kv.set(keys.hitRollup(partId), entry);
  return entry.bytes + (entry.head?.bytes ?? 0);
}

/** Whether a part has a rollup of the current version. */
export async function hasHitRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v === HIT_ROLLUP_VERSION;
}

/** The version of a part's rollup entry (null: none). */
export async function hitRollupVersion(kv: Deno.Kv, partId: string): Promise<number | null> {
  return (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v ?? null;
}

/** Chunks [from, to) joined into `size` bytes, or null when one is missing or does not fit. */
async function readChunks(
  kv: Deno.Kv,
  partId: string,
  from: number,
  to: number,
  size: number,
): Promise<Uint8Array | null> {
  const bytes = new Uint8Array(size);
  let seen = 0;
  const list = kv.list<Uint8Array>({
    start: keys.hitRollupChunk(partId, from),
    end: keys.hitRollupChunk(partId, to),
  }, { batchSize: 100 });
  for await (const e of list) {
    const at = ((e.key[2] as number) - from) * CHUNK_BYTES;
    if (at + e.value.length > bytes.length) return null;
    bytes.set(e.value, at);
    release(e.value); // (copied: freed now, not at V8's next full collection)
    seen++;
  }
  return seen === to - from ? bytes : null;
}

/** Whether the entry is still the one read (not deleted or rewritten while its chunks were read). */
async function unchanged(kv: Deno.Kv, partId: string, stamp: string): Promise<boolean> {
  return (await kv.get(keys.hitRollup(partId))).versionstamp === stamp;
}

/**
 * A part's rollup head, or null when it has none readable (or it went, or was rewritten, meanwhile: the entry
 * is read again after the chunks, and the backfill deletes it before it touches them). Versions 1 and 2 are
 * read whole (their hourly rows come with the head); `stored`: the bytes read.
 */
export async function readHitRollupHead(
  kv: Deno.Kv,
  partId: string,
): Promise<(HitRollupHead & { stored: number }) | null> {
  const got = await kv.get<HitRollupEntry>(keys.hitRollup(partId));
  const entry = got.value, stamp = got.versionstamp;
  if (!entry || !READABLE.has(entry.v) || !stamp) return null;
  if (!entry.head) {
    const bytes = await readChunks(kv, partId, 0, entry.chunks, entry.bytes);
    if (!bytes || !(await unchanged(kv, partId, stamp))) return null;
    const { r, whole } = decodeHitRollup(bytes, entry.raw);
    release(bytes); // (inflated into a buffer of its own)
    // a version 1 rollup merges its hours here, until the backfill rewrites it
    const w = whole ?? mergeHours(r);
    return { whole: w, spans: hourSpans(r), hour0: r.hour0, hours: r.hours, r, stamp, stored: entry.bytes };
  }
  const bytes = await readChunks(kv, partId, 0, entry.head.chunks, entry.head.bytes);
  if (!bytes || !(await unchanged(kv, partId, stamp))) return null;
  const { header: h, next } = inflateArrays<Header>(bytes, entry.head.raw);
  release(bytes); // (inflated into a buffer of its own)
  const min = next<Float64Array>(Float64Array, h.hours), max = next<Float64Array>(Float64Array, h.hours);
  const whole = readWhole(h, next);
  return {
    whole,
    spans: { min, max },
    hour0: h.hour0,
    hours: h.hours,
    r: null,
    stamp,
    header: h,
    stored: entry.head.bytes,
  };
}

/**
 * A version 3 rollup's hourly rows, given its head (they share its dictionaries and pending ids), or null when
 * the rollup went or was rewritten since the head was read. `stored`: the bytes read.
 */
export async function readHitRollupHours(
  kv: Deno.Kv,
  partId: string,
  head: HitRollupHead,
): Promise<{ r: HitRollup; stored: number } | null> {
  if (head.r) return { r: head.r, stored: 0 };
  const got = await kv.get<HitRollupEntry>(keys.hitRollup(partId));
  const entry = got.value;
  if (!entry?.head || got.versionstamp !== head.stamp) return null;
  const bytes = await readChunks(kv, partId, entry.head.chunks, entry.chunks, entry.bytes);
  if (!bytes || !(await unchanged(kv, partId, head.stamp))) return null;
  const { next } = inflateArrays<{ n: number }>(bytes, entry.raw);
  release(bytes); // (inflated into a buffer of its own)
  return { r: readHourly(head.header!, next), stored: entry.bytes };
}

/**
 * A part's rollup (any readable version: `whole` null for version 1) and its stored bytes, or null when it
 * has none readable (or it went, or was rewritten, meanwhile).
 */
export async function readHitRollup(
  kv: Deno.Kv,
  partId: string,
): Promise<(StoredHitRollup & { stored: number; v: number }) | null> {
  const head = await readHitRollupHead(kv, partId);
  if (!head) return null;
  const v = (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v ?? 0;
  if (head.r) {
    return { r: head.r, whole: v === 1 ? null : head.whole, stored: head.stored, v };
  }
  const hours = await readHitRollupHours(kv, partId, head);
  if (!hours) return null;
  return { r: hours.r, whole: head.whole, stored: head.stored + hours.stored, v };
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
