/**
 * A merged group's visitor numbers (vitals/answer.ts `membersOf`): few are sorted, many are marked in bits;
 * sparse or dense, the count is the distinct numbers', `has` tells members from others, `each` gives them
 * ascending once each.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { membersOf } from "../../../lib/query/vitals/answer.ts";

Deno.test("vitals members: distinct counts, membership and order, few or many, sparse or dense", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(10, 1_000, 70_000, 200_000),
      fc.constantFrom(100, 50_000, 5_000_000),
      fc.integer({ min: 0, max: 2 ** 31 }),
      (n, space, seed) => {
        let x = seed;
        const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) % space;
        const xs = Uint32Array.from({ length: n }, next);
        const want = [...new Set(xs)].sort((a, b) => a - b);
        const m = membersOf(xs);
        assert.equal(m.count, want.length);
        const got: number[] = [];
        m.each((v) => got.push(v));
        assert.deepEqual(got, want);
        for (let k = 0; k < 200; k++) {
          const v = next();
          assert.equal(m.has(v), want.includes(v), `${v}`);
        }
        assert.equal(m.has(space + 7), false);
      },
    ),
    { numRuns: 24 },
  );
});
