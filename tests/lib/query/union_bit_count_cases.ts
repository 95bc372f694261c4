/** A kept union's counts come from its bits (unions.ts bitCount): every set bit once, whatever the length. */
import assert from "node:assert/strict";
import { bitCount, UnionBuilder } from "../../../lib/query/rollup/unions.ts";

const naive = (b: Uint8Array) => {
  let n = 0;
  for (const x of b) for (let i = 0; i < 8; i++) n += (x >> i) & 1;
  return n;
};

Deno.test("bitCount: equals a bit-by-bit count, over whole words, a tail of bytes and an unaligned view", () => {
  for (const len of [0, 1, 3, 4, 5, 8, 127, 1000, 125_001]) {
    const b = Uint8Array.from({ length: len }, (_, i) => (i * 2654435761) >>> 24);
    assert.equal(bitCount(b), naive(b), `length ${len}`);
    const view = b.subarray(Math.min(1, len));
    assert.equal(bitCount(view), naive(view), `length ${len}, from byte 1`);
  }
  assert.equal(bitCount(new Uint8Array(16).fill(255)), 128);
});

Deno.test("UnionBuilder: a value's count is its distinct visitors over the parts, members repeated across parts once", () => {
  // two parts, one value; visitor sets as stored: each member one more than the one before plus the byte
  const part = (members: number[]) => {
    const sets: number[] = [];
    let prev = -1;
    for (const m of members) {
      let d = m - prev - 1;
      prev = m;
      while (d >= 0x80) {
        sets.push((d & 0x7f) | 0x80);
        d = Math.floor(d / 128);
      }
      sets.push(d);
    }
    return {
      sets: Uint8Array.from(sets),
      visAt: Uint32Array.of(0, sets.length),
      viewAt: Uint32Array.of(sets.length),
      value: Uint32Array.of(0),
      values: ["/"],
    };
  };
  const b = new UnionBuilder(false, 1000);
  b.add(part([1, 5, 200, 999]) as never, [0]);
  b.add(part([5, 6, 999, 5000]) as never, [0]); // 5000: past the space given, the bits grow
  const u = b.done()!;
  assert.equal(u.counts.get("/"), 6);
});
