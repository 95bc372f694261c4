/**
 * Inflating stored tables (lib/parts/packed_arrays.ts): the bytes come back equal, and what is returned holds
 * no more memory than its own size (a small output on zlib's 16 KB chunk would keep the chunk alive).
 */
import assert from "node:assert/strict";
import { deflateRawSync } from "node:zlib";
import {
  deflated,
  inflateArrays,
  inflateBytes,
  knowRawSize,
  packArrays,
  rawSizeOf,
  release,
  releaseDecoded,
} from "../../../lib/parts/packed_arrays.ts";

const sample = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7919) % 251 & (i % 5 ? 255 : 0));

Deno.test("inflateBytes: equal bytes, a buffer of their own size, with or without the size known", () => {
  for (const n of [0, 1, 100, 2_000, 16_384, 16_385, 30_000, 300_000]) {
    const raw = sample(n), stored = deflateRawSync(raw);
    for (const known of [undefined, n]) {
      const out = inflateBytes(stored, known);
      assert.deepStrictEqual(out, raw, `${n} bytes, size ${known}`);
      assert.equal(out.byteOffset, 0);
      assert.ok(
        out.buffer.byteLength <= Math.max(64, n + 1 + n / 8),
        `${n}: buffer of ${out.buffer.byteLength}`,
      );
    }
  }
});

Deno.test("inflateArrays: arrays read back in place, aligned", () => {
  const a = Float64Array.from([1.5, -2, 3]), b = Uint32Array.from([7, 8, 9, 10, 11]), c = sample(13);
  const { header, next } = inflateArrays<{ k: string }>(deflateRawSync(packArrays({ k: "x" }, [a, b, c])));
  assert.deepStrictEqual(header, { k: "x" });
  assert.deepStrictEqual(next<Float64Array>(Float64Array, 3), a);
  assert.deepStrictEqual(next<Uint32Array>(Uint32Array, 5), b);
  assert.deepStrictEqual(next<Uint8Array>(Uint8Array, 13), c);
});

Deno.test("inflateBytes: bytes made by `deflated` (or read with their size, `knowRawSize`) inflate into one buffer of that size", () => {
  // (outputs under 4 kB come from a shared pool and are copied to their size: see the test above)
  for (const n of [16_385, 300_000]) {
    const raw = sample(n), stored = deflated(raw);
    assert.equal(rawSizeOf(stored), n);
    const copy = knowRawSize(stored.slice(), n);
    for (const bytes of [stored, copy]) {
      const out = inflateBytes(bytes);
      assert.deepStrictEqual(out, raw);
      // a buffer of exactly the recorded size, so `release` frees it whole
      assert.equal(out.buffer.byteLength, n, `${n}: one buffer of the known size`);
      release(out);
      assert.equal(out.buffer.detached, true);
    }
    // unknown (no size recorded, no kind): zlib's 16 KB chunks, joined into a buffer of the output's size
    assert.equal(rawSizeOf(stored.slice()), undefined);
  }
});

Deno.test("inflateBytes: sections in a row through the reused inflater; a wrong size or broken bytes answered as zlib's own call", () => {
  const many = [1, 70, 4_095, 5_000, 16_384, 40_000, 3].map((n, i) => sample(n).map((x) => x ^ i));
  for (let round = 0; round < 2; round++) {
    for (const raw of many) assert.deepStrictEqual(inflateBytes(deflateRawSync(raw), raw.length), raw);
  }
  const raw = sample(10_000), stored = deflateRawSync(raw);
  // a size too small or too large (not this section's): the bytes still come back whole
  for (const wrong of [1, 9_999, 10_001, 50_000]) assert.deepStrictEqual(inflateBytes(stored, wrong), raw);
  // trailing bytes past the stream: as `inflateRawSync` reads them
  const tail = new Uint8Array(stored.length + 3);
  tail.set(stored);
  assert.deepStrictEqual(inflateBytes(tail, raw.length), raw);
  // broken bytes throw as zlib's call does, and the next section inflates
  const broken = Uint8Array.from([1, 2, 3, 4, 5, 6]);
  assert.throws(() => inflateBytes(broken, 100));
  const cut = stored.slice(0, stored.length >> 1);
  assert.throws(() => inflateBytes(cut, raw.length));
  assert.deepStrictEqual(inflateBytes(stored, raw.length), raw);
});

Deno.test("release: bytes a reader alone holds are let go at once; a view on part of a buffer is left", () => {
  const whole = sample(100_000);
  const part = new Uint8Array(new ArrayBuffer(64), 8, 16);
  release(whole);
  release(part);
  release(null);
  assert.equal(whole.buffer.detached, true);
  assert.equal(whole.length, 0);
  assert.equal(part.buffer.detached, false);
  assert.equal(part.length, 16);
  // a stored section decoded, then released: what it decoded to stays whole
  const stored = deflated(sample(50_000));
  const out = inflateBytes(stored);
  release(stored);
  assert.deepStrictEqual(out, sample(50_000));
});

Deno.test("releaseDecoded: a decoded section's arrays are all let go at once; another section's are left", () => {
  const section = () =>
    deflated(packArrays({ n: 3 }, [Uint32Array.of(1, 2, 3), Float64Array.of(0.5, 1.5, 2.5)]));
  const read = (stored: Uint8Array) => {
    const { next } = inflateArrays<{ n: number }>(stored);
    return { a: next<Uint32Array>(Uint32Array, 3), b: next<Float64Array>(Float64Array, 3) };
  };
  const one = read(section()), other = read(section());
  releaseDecoded(one.a);
  releaseDecoded(null);
  assert.equal(one.a.length, 0);
  assert.equal(one.b.length, 0, "the section's other arrays share its buffer: let go with it");
  assert.deepEqual([...other.a], [1, 2, 3]);
  assert.deepEqual([...other.b], [0.5, 1.5, 2.5]);
});
