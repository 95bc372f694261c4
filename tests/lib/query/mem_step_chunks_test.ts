/**
 * A step column section is read from its KV chunks where they lie (store.ts `Stored`): a piece within one
 * chunk is a view on that chunk, only a piece across chunks is copied, and a section of many chunks decodes
 * equal to its bytes joined (the join was as many bytes made as read: 34-47 MB a cold funnel at 10M events).
 */
import assert from "node:assert/strict";
import { CHUNK_BYTES } from "../../../lib/parts/store.ts";
import type { StepSection } from "../../../lib/query/step_column/build.ts";
import { decodeSection, encodeSection, storedRange } from "../../../lib/query/step_column/store.ts";

/** A section of n rows whose stored bytes span several chunks (random numbers deflate little). */
function bigSection(n: number): StepSection {
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const vis = new Uint32Array(n),
    t = new Float64Array(n),
    dt = new Float64Array(n),
    seq = new Float64Array(n);
  const page = new Uint16Array(n), tp = new Uint16Array(n), tr = new Uint8Array(n), row = new Uint32Array(n);
  const ses = new Uint32Array(n);
  let v = 0;
  for (let k = 0; k < n; k++) {
    if (k === 0 || rand() < 0.3) v += 1 + Math.floor(rand() * 1000);
    vis[k] = v;
    t[k] = 1_700_000_000_000 + Math.floor(rand() * 2_000_000_000);
    dt[k] = t[k] + Math.floor(rand() * 5000) - 2500;
    seq[k] = Math.floor(rand() * 50);
    page[k] = Math.floor(rand() * 300);
    tp[k] = 1;
    tr[k] = 1;
    row[k] = rand() < 0.01 ? 1 + Math.floor(rand() * n) : 0;
    ses[k] = Math.floor(rand() * n);
  }
  const pages = Array.from({ length: 300 }, (_, i) => (i ? `/p/${i}` : null));
  return {
    et: "$pageview",
    n,
    pages,
    tps: [null, "tp1"],
    trs: [null, "human"],
    vis,
    t,
    dt,
    seq,
    page,
    tp,
    tr,
    row,
    ses,
    h1: new Uint32Array(0),
    h2: new Uint32Array(0),
  };
}

const chunked = (bytes: Uint8Array) => {
  const out: Uint8Array[] = [];
  // each chunk a buffer of its own, as KV's values are
  for (let o = 0; o < bytes.length; o += CHUNK_BYTES) out.push(bytes.slice(o, o + CHUNK_BYTES));
  return out;
};

Deno.test("step column: a section of many chunks decodes as its bytes joined", () => {
  const sec = bigSection(60_000);
  const bytes = encodeSection(sec);
  const chunks = chunked(bytes);
  assert.ok(chunks.length >= 4, `several chunks (${chunks.length})`);
  const back = decodeSection(chunks);
  assert.deepEqual(back, decodeSection(bytes));
  assert.deepEqual({ ...back, h1: sec.h1, h2: sec.h2 }, sec);
});

Deno.test("step column: a piece within one chunk is read in place, one across chunks copied", () => {
  const bytes = new Uint8Array(CHUNK_BYTES * 2 + 100).map((_, i) => i % 251);
  const chunks = chunked(bytes);
  const inside = storedRange(chunks, CHUNK_BYTES + 10, 500);
  assert.equal(inside.buffer, chunks[1].buffer, "a view on the chunk, not a copy");
  assert.deepEqual(inside, bytes.subarray(CHUNK_BYTES + 10, CHUNK_BYTES + 510));
  const across = storedRange(chunks, CHUNK_BYTES - 20, CHUNK_BYTES + 100);
  assert.notEqual(across.buffer, chunks[0].buffer);
  assert.deepEqual(across, bytes.subarray(CHUNK_BYTES - 20, 2 * CHUNK_BYTES + 80));
  // one buffer: views throughout
  assert.equal(storedRange(bytes, CHUNK_BYTES - 20, 500).buffer, bytes.buffer);
  // past the stored bytes, or over a chunk cut short: fails
  assert.throws(() => storedRange(chunks, 2 * CHUNK_BYTES + 50, 100), RangeError);
  assert.throws(() => storedRange([chunks[0].subarray(0, 100), chunks[1]], 50, 100), RangeError);
});
