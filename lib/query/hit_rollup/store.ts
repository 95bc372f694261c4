/**
 * A hit part's rollup on KV: one JSON header (dictionaries, pending ids) and the row arrays in one aligned
 * buffer, deflated and chunked under keys.hitRollupChunk(part id, i); the entry keys.hitRollup(part id) =
 * { v, bytes, chunks } is written last, so a rollup is there whole or not at all. Compaction writes it under
 * the part's building mark, deleteChunks (lib/parts/store.ts) deletes it with the part, and parts from before
 * hit rollups get one from lib/jobs/hit_rollup_backfill.ts.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { keys } from "../../store/keys.ts";
import { type Codes, DIMS, type HitRollup } from "./build.ts";

/** 1: the first layout. A rollup of another version is rebuilt by the backfill; questions scan its part meanwhile. */
export const HIT_ROLLUP_VERSION = 1;

export interface HitRollupEntry {
  v: number;
  bytes: number;
  chunks: number;
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
}

const align = (n: number) => Math.ceil(n / 8) * 8;

export function encodeHitRollup(r: HitRollup): Uint8Array {
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
  const h = new TextEncoder().encode(JSON.stringify(header));
  let size = align(4 + h.length);
  for (const a of arrays) size += align(a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, h.length, true);
  out.set(h, 4);
  let o = align(4 + h.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
    o += align(a.byteLength);
  }
  return deflateRawSync(out);
}

type Typed = { new (b: ArrayBuffer, o: number, n: number): unknown; BYTES_PER_ELEMENT: number };
const BY_WIDTH: Record<number, Typed> = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array };

export function decodeHitRollup(stored: Uint8Array): HitRollup {
  const bytes = new Uint8Array(inflateRawSync(stored));
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const len = new DataView(buf).getUint32(0, true);
  const h = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, len))) as Header;
  let o = align(4 + len);
  const next = <T>(T: Typed, n: number): T => {
    const a = new T(buf, o, n);
    o += align(n * T.BYTES_PER_ELEMENT);
    return a as T;
  };
  const T = h.wide ? Float64Array : Uint32Array;
  const minT = next<Uint32Array | Float64Array>(T, h.n), maxT = next<Uint32Array | Float64Array>(T, h.n);
  const requests = next<Uint32Array>(Uint32Array, h.n);
  const pendRow = next<Uint32Array>(Uint32Array, h.pendId.length);
  const hour = next<Uint16Array>(Uint16Array, h.n);
  const codes = DIMS.map((_, d) => next<Codes>(BY_WIDTH[h.widths[d]], h.n));
  return {
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
}

/** Writes a part's rollup: chunks first, then the entry. Answers the stored bytes. */
export async function writeHitRollup(kv: Deno.Kv, partId: string, r: HitRollup): Promise<number> {
  const bytes = encodeHitRollup(r);
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(keys.hitRollupChunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("hit rollup chunk write failed");
  }
  const entry: HitRollupEntry = { v: HIT_ROLLUP_VERSION, bytes: bytes.length, chunks };
  await kv.set(keys.hitRollup(partId), entry);
  return bytes.length;
}

/** Whether a part has a rollup of the current version. */
export async function hasHitRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value?.v === HIT_ROLLUP_VERSION;
}

/** A part's rollup and its stored bytes, or null when it has none of the current version (or it went meanwhile). */
export async function readHitRollup(
  kv: Deno.Kv,
  partId: string,
): Promise<{ rollup: HitRollup; stored: number } | null> {
  const entry = (await kv.get<HitRollupEntry>(keys.hitRollup(partId))).value;
  if (!entry || entry.v !== HIT_ROLLUP_VERSION) return null;
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: keys.hitRollupChunks(partId) }, { batchSize: 100 })) {
    bytes.set(e.value, (e.key[2] as number) * CHUNK_BYTES);
    seen++;
  }
  if (seen !== entry.chunks) return null;
  return { rollup: decodeHitRollup(bytes), stored: entry.bytes };
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
