import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeSet, decodeSetInto, DistinctCounter, encodeSet } from "../../../lib/parts/visitor_set.ts";

const numbers = fc.array(
  fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 2 ** 32 - 1 }), fc.constantFrom(0, 127, 128, 16_383, 16_384)),
  { maxLength: 200 },
);

Deno.test("visitor sets: decoding gives the distinct members in order, whatever the input order and repeats", () => {
  fc.assert(
    fc.property(numbers, (xs) => {
      assert.deepEqual(decodeSet(encodeSet(xs)), [...new Set(xs)].sort((a, b) => a - b));
    }),
    { numRuns: 500 },
  );
});

Deno.test("visitor sets: decoding into an array after what it holds gives the same members", () => {
  fc.assert(
    fc.property(numbers, fc.nat({ max: 5 }), (xs, at) => {
      const bytes = encodeSet(xs);
      const out = new Uint32Array(at + bytes.length).fill(7);
      const end = decodeSetInto(bytes, 0, bytes.length, out, at);
      assert.deepEqual([...out.subarray(at, end)], decodeSet(bytes));
      assert.ok(out.subarray(0, at).every((v) => v === 7), "what it held stays");
    }),
    { numRuns: 500 },
  );
});

Deno.test("visitor sets: consecutive members take a byte each", () => {
  assert.equal(encodeSet(Array.from({ length: 1000 }, (_, i) => 5_000 + i)).length, 2 + 999);
});

Deno.test("distinct counter: a group's count is the size of the union of its sets; groups are independent", () => {
  const small = fc.array(fc.oneof(fc.nat({ max: 300 }), fc.nat({ max: 100_000 })), { maxLength: 100 });
  fc.assert(
    fc.property(fc.array(fc.array(small, { maxLength: 5 }), { maxLength: 6 }), (groups) => {
      const c = new DistinctCounter(16);
      for (const sets of groups) {
        c.next();
        for (const s of sets) {
          const bytes = new Uint8Array([9, ...encodeSet(s), 9]); // a set inside a larger buffer
          c.addEncoded(bytes, 1, bytes.length - 1);
        }
        assert.equal(c.count, new Set(sets.flat()).size);
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("distinct counter: a new group forgets the last one's members, however many words they set", () => {
  const c = new DistinctCounter(64);
  const all = Array.from({ length: 40_000 }, (_, i) => i * 3);
  c.next();
  const bytes = encodeSet(all);
  c.addEncoded(bytes, 0, bytes.length);
  assert.equal(c.count, all.length);
  c.next();
  c.add(3);
  c.add(3);
  c.add(119_997);
  assert.equal(c.count, 2);
  c.next();
  c.addEncoded(bytes, 0, bytes.length);
  c.add(1);
  assert.equal(c.count, all.length + 1);
});
