/**
 * A part's rollup on KV: its bytes (deflated) in chunks under keys.rollupChunk(part id, i), then its entry
 * keys.rollup(part id) = { v, bytes, chunks } written last, so a rollup is there whole or not at all. Parts
 * written before rollups existed have none until the backfill job (lib/jobs/rollup_backfill.ts) adds it;
 * chunks go with the part's own (lib/parts/store.ts deleteChunks).
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Batch } from "../../parts/columns.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import { keys } from "../../store/keys.ts";
import type { EnvName } from "../../store/records.ts";
import { batchVisitors, buildRollup, type Rollup, rowVisitors } from "./build.ts";
import { FACT_LAYOUT, type SessionFacts } from "./session_facts.ts";

/** 2: session facts (session_facts.ts) after the visitor sets; 3: with their rows' device times and numbers. Parts
 * with an older rollup get a new one
 * from the backfill, their questions scanning meanwhile. */
export const ROLLUP_VERSION = 3;

interface RollupEntry {
  v: number;
  bytes: number;
  chunks: number;
}

type Arrays = Pick<
  Rollup,
  | "engSum"
  | "scrollSum"
  | "hour"
  | "value"
  | "events"
  | "pageviews"
  | "rage"
  | "engN"
  | "scrollN"
  | "visAt"
  | "viewAt"
  | "tp"
  | "traffic"
  | "field"
>;
/** Array columns in stored order: widest first, so each starts aligned. */
const LAYOUT: [
  keyof Arrays,
  Float64ArrayConstructor | Uint32ArrayConstructor | Uint16ArrayConstructor | Uint8ArrayConstructor,
  number,
][] = [
  ["engSum", Float64Array, 0],
  ["scrollSum", Float64Array, 0],
  ["hour", Uint32Array, 0],
  ["value", Uint32Array, 0],
  ["events", Uint32Array, 0],
  ["pageviews", Uint32Array, 0],
  ["rage", Uint32Array, 0],
  ["engN", Uint32Array, 0],
  ["scrollN", Uint32Array, 0],
  ["visAt", Uint32Array, 1],
  ["viewAt", Uint32Array, 1],
  ["tp", Uint16Array, 0],
  ["traffic", Uint8Array, 0],
  ["field", Uint8Array, 0],
];

const bytesOf = (T: unknown) => (T as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;

export function encodeRollup(r: Rollup): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify({
    v: ROLLUP_VERSION,
    n: r.n,
    values: r.values,
    tps: r.tps,
    traffics: r.traffics,
    hours: r.hours,
    sets: r.sets.length,
    facts: r.facts.n,
    list: r.facts.listDt.length,
  }));
  const start = Math.ceil((4 + header.length) / 8) * 8;
  let size = start;
  for (const [, T, extra] of LAYOUT) size += Math.ceil(((r.n + extra) * T.BYTES_PER_ELEMENT) / 8) * 8;
  const setsEnd = size + Math.ceil(r.sets.length / 8) * 8;
  size = setsEnd;
  for (const [, T] of FACT_LAYOUT) size += Math.ceil((r.facts.n * bytesOf(T)) / 8) * 8;
  const list = r.facts.listDt.length;
  size += 16 * list + Math.ceil(((r.facts.n + 1) * 4) / 8) * 8;
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let o = start;
  for (const [name, T, extra] of LAYOUT) {
    const a = r[name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, (r.n + extra) * T.BYTES_PER_ELEMENT), o);
    o += Math.ceil(((r.n + extra) * T.BYTES_PER_ELEMENT) / 8) * 8;
  }
  out.set(r.sets, o);
  o = setsEnd;
  for (const [name, T] of FACT_LAYOUT) {
    const a = r.facts[name] as unknown as Uint8Array;
    out.set(new Uint8Array(a.buffer, a.byteOffset, r.facts.n * bytesOf(T)), o);
    o += Math.ceil((r.facts.n * bytesOf(T)) / 8) * 8;
  }
  for (const a of [r.facts.listDt, r.facts.listSeq, r.facts.listAt]) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
    o += Math.ceil(a.byteLength / 8) * 8;
  }
  return deflateRawSync(out);
}

export function decodeRollup(stored: Uint8Array): Rollup {
  const bytes = new Uint8Array(inflateRawSync(stored));
  const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
  const h = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + len)));
  if (h.v !== ROLLUP_VERSION) throw new Error(`rollup version ${h.v} is not ${ROLLUP_VERSION}`);
  const n: number = h.n;
  let o = Math.ceil((4 + len) / 8) * 8;
  const arrays = {} as Record<string, unknown>;
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  for (const [name, T, extra] of LAYOUT) {
    arrays[name] = new T(buf, o, n + extra);
    o += Math.ceil(((n + extra) * T.BYTES_PER_ELEMENT) / 8) * 8;
  }
  const sets = new Uint8Array(buf, o, h.sets);
  o += Math.ceil(h.sets / 8) * 8;
  const facts = { n: h.facts } as Record<string, unknown>;
  for (const [name, T] of FACT_LAYOUT) {
    facts[name] = new (T as unknown as new (b: ArrayBuffer, o: number, n: number) => unknown)(
      buf,
      o,
      h.facts,
    );
    o += Math.ceil((h.facts * bytesOf(T)) / 8) * 8;
  }
  facts.listDt = new Float64Array(buf, o, h.list);
  o += 8 * h.list;
  facts.listSeq = new Float64Array(buf, o, h.list);
  o += 8 * h.list;
  facts.listAt = new Uint32Array(buf, o, h.facts + 1);
  return {
    ...(arrays as unknown as Arrays),
    n,
    sets,
    facts: facts as unknown as SessionFacts,
    values: h.values,
    tps: h.tps,
    traffics: h.traffics,
    hours: h.hours,
  };
}

/** The rollup of a part's batch, numbering its visitors (new ones get their numbers now, for good). */
export async function partRollup(kv: Deno.Kv, org: string, env: EnvName, b: Batch): Promise<Rollup> {
  const numbers = await numberVisitors(kv, org, env, batchVisitors(b));
  const rows = rowVisitors(b, numbers);
  return buildRollup(b, (i) => rows[i]);
}

/** Writes a part's rollup: chunks first, the entry last. Answers the bytes stored. */
export async function writeRollup(kv: Deno.Kv, partId: string, r: Rollup): Promise<number> {
  const bytes = encodeRollup(r);
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i += 8) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(chunks, i + 8); j++) {
      op.set(keys.rollupChunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
    }
    if (!(await op.commit()).ok) throw new Error("rollup chunk write failed");
  }
  const entry: RollupEntry = { v: ROLLUP_VERSION, bytes: bytes.length, chunks };
  await kv.set(keys.rollup(partId), entry);
  return bytes.length;
}

/** A part's rollup, or null when it has none (yet) or one of another version. */
export async function readRollup(kv: Deno.Kv, partId: string): Promise<Rollup | null> {
  const entry = (await kv.get<RollupEntry>(keys.rollup(partId))).value;
  if (!entry || entry.v !== ROLLUP_VERSION) return null;
  const bytes = new Uint8Array(entry.bytes);
  let seen = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: keys.rollupChunks(partId) }, { batchSize: 100 })) {
    bytes.set(e.value, (e.key[2] as number) * CHUNK_BYTES);
    seen++;
  }
  if (seen !== entry.chunks) return null; // the part went (a merge) while reading: the caller re-plans
  return decodeRollup(bytes);
}

/** Whether a part has a rollup of this version. */
export async function hasRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<RollupEntry>(keys.rollup(partId))).value?.v === ROLLUP_VERSION;
}
