/** Version-3 rollups as deployments wrote them (one deflated blob per part), for the backfill's conversion test. */
import { deflateRawSync } from "node:zlib";
import type { Rollup } from "../../../lib/query/rollup/build.ts";
import { FACT_LAYOUT } from "../../../lib/query/rollup/session_facts.ts";
import { clearRollup } from "../../../lib/query/rollup/store.ts";
import { CHUNK_BYTES } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";

const LAYOUT: [keyof Rollup, { BYTES_PER_ELEMENT: number }, number][] = [
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
const align = (n: number) => Math.ceil(n / 8) * 8;

function encodeV3(r: Rollup): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify({
    v: 3,
    n: r.n,
    values: r.values,
    tps: r.tps,
    traffics: r.traffics,
    hours: r.hours,
    sets: r.sets.length,
    facts: r.facts.n,
    list: r.facts.listDt.length,
  }));
  const parts: ArrayBufferView[] = [];
  for (const [name, T, extra] of LAYOUT) {
    const a = r[name] as unknown as Uint8Array;
    parts.push(new Uint8Array(a.buffer, a.byteOffset, (r.n + extra) * T.BYTES_PER_ELEMENT));
  }
  parts.push(r.sets);
  for (const [name] of FACT_LAYOUT) parts.push(r.facts[name] as unknown as ArrayBufferView);
  const lists = [r.facts.listDt, r.facts.listSeq, r.facts.listAt];
  let size = align(4 + header.length);
  for (const p of parts) size += align(p.byteLength);
  for (const l of lists) size += align(l.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let o = align(4 + header.length);
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += align(p.byteLength);
  }
  // version 3 stored the lists unpadded one after the other (8-byte elements keep them aligned)
  for (const l of lists) {
    out.set(new Uint8Array(l.buffer, l.byteOffset, l.byteLength), o);
    o += l.byteLength;
  }
  return deflateRawSync(out);
}

/** Replaces a part's rollup by its version-3 form. */
export async function writeV3(kv: Deno.Kv, partId: string, r: Rollup): Promise<void> {
  await clearRollup(kv, partId);
  const bytes = encodeV3(r);
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let j = 0; j < chunks; j++) {
    await kv.set(keys.rollupChunk(partId, j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
  }
  await kv.set(keys.rollup(partId), { v: 3, bytes: bytes.length, chunks });
}
