/**
 * A part's property rollup on KV: one JSON header (dictionaries, hours, scanned pairs) and the row arrays and
 * visitor sets in one aligned buffer, deflated and chunked under propRollupKeys.chunk(part id, i); the entry
 * propRollupKeys.entry(part id) = { v, bytes, chunks } is written last, so a table is there whole or not at
 * all. Compaction writes it beside the part's other rollups (under its building mark), deleting a part's bytes
 * deletes it (deletePropRollup), and older parts get one from lib/jobs/prop_rollup_backfill.ts.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { CHUNK_BYTES } from "../../parts/store.ts";
import type { Batch } from "../../parts/columns.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import type { EnvName } from "../../store/records.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { buildPropRollup, type PropRollup } from "./build.ts";

/** 2: value rows merged over hours past the cap (1: dropped). A table of another version is rebuilt by the backfill; questions read its part meanwhile. */
export const PROP_ROLLUP_VERSION = 2;

/** KV keys of property rollups (the conventions of lib/store/keys.ts: an entry, its chunks beside it). */
export const propRollupKeys = {
  entry: (partId: string) => ["prop_rollup", partId] as const,
  chunk: (partId: string, index: number) => ["prop_rollup_chunk", partId, index] as const,
  chunks: (partId: string) => ["prop_rollup_chunk", partId] as const,
};

export interface PropRollupEntry {
  v: number;
  bytes: number;
  chunks: number;
  /** rows, for benches */
  rows: number;
}

type Header =
  & Omit<PropRollup, "hour" | "tp" | "tr" | "et" | "key" | "value" | "events" | "setAt" | "sets">
  & {
    setBytes: number;
  };

const align = (n: number) => Math.ceil(n / 8) * 8;

export function encodePropRollup(r: PropRollup): Uint8Array {
  const header: Header = {
    n: r.n,
    hours: r.hours,
    tps: r.tps,
    trs: r.trs,
    ets: r.ets,
    keys: r.keys,
    values: r.values,
    scan: r.scan,
    whole: r.whole,
    setBytes: r.sets.byteLength,
  };
  // widest first, so each array starts aligned
  const arrays: ArrayBufferView[] = [r.hour, r.value, r.events, r.setAt, r.tp, r.et, r.key, r.tr, r.sets];
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

export function decodePropRollup(stored: Uint8Array): PropRollup {
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
  const { setBytes, ...rest } = h;
  return {
    ...rest,
    hour: next<Uint32Array>(Uint32Array, h.n),
    value: next<Uint32Array>(Uint32Array, h.n),
    events: next<Uint32Array>(Uint32Array, h.n),
    setAt: next<Uint32Array>(Uint32Array, h.n + 1),
    tp: next<Uint16Array>(Uint16Array, h.n),
    et: next<Uint16Array>(Uint16Array, h.n),
    key: next<Uint16Array>(Uint16Array, h.n),
    tr: next<Uint8Array>(Uint8Array, h.n),
    sets: next<Uint8Array>(Uint8Array, setBytes),
  };
}

/** The property rollup of a part's batch, numbering its visitors (new ones get their numbers now, for good). */
export async function partPropRollup(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  b: Batch,
  o: { cap?: number; wholeCap?: number } = {},
): Promise<PropRollup> {
  const numbers = await numberVisitors(kv, org, env, batchVisitors(b));
  const rows = rowVisitors(b, numbers);
  return buildPropRollup(b, (i) => rows[i], { cap: o.cap, wholeCap: o.wholeCap });
}

/** Writes a part's table: chunks first, then the entry. Answers the stored bytes. */
export async function storePropRollup(kv: Deno.Kv, partId: string, r: PropRollup): Promise<number> {
  const bytes = encodePropRollup(r);
  await deletePropRollup(kv, partId); // an older version's chunks never sit among the new ones
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(propRollupKeys.chunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("property rollup chunk write failed");
  }
  const entry: PropRollupEntry = { v: PROP_ROLLUP_VERSION, bytes: bytes.length, chunks, rows: r.n };
  await kv.set(propRollupKeys.entry(partId), entry);
  return bytes.length;
}

/**
 * Compaction's entry point (beside writeRollup / writeHitRollup, and in the generator's part writer): builds
 * the part's table from its batch and writes it. Answers the stored bytes.
 */
export async function writePropRollup(
  kv: Deno.Kv,
  partId: string,
  batch: Batch,
  org: string,
  env: EnvName,
  o: { cap?: number; wholeCap?: number } = {},
): Promise<number> {
  return await storePropRollup(kv, partId, await partPropRollup(kv, org, env, batch, o));
}

/** Whether a part has a table of the current version. */
export async function hasPropRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<PropRollupEntry>(propRollupKeys.entry(partId))).value?.v === PROP_ROLLUP_VERSION;
}

/** A part's table and its stored bytes, or null when it has none of the current version (or it went meanwhile). */
export async function readPropRollup(
  kv: Deno.Kv,
  partId: string,
): Promise<{ rollup: PropRollup; stored: number } | null> {
  const entry = (await kv.get<PropRollupEntry>(propRollupKeys.entry(partId))).value;
  if (!entry || entry.v !== PROP_ROLLUP_VERSION) return null;
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: propRollupKeys.chunks(partId) }, { batchSize: 100 })) {
    bytes.set(e.value, (e.key[2] as number) * CHUNK_BYTES);
    seen++;
  }
  if (seen !== entry.chunks) return null;
  return { rollup: decodePropRollup(bytes), stored: entry.bytes };
}

/** Deletes a part's table: the entry first, so no half table is ever read. */
export async function deletePropRollup(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(propRollupKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: propRollupKeys.chunks(partId) }, { batchSize: 100 })) {
    ks.push(e.key);
  }
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
