/** The sliced sort gives the same order as Array.prototype.sort (both stable), and the loop its turns. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { SORT_SLICE, sortInSlices } from "../../../lib/parts/slice_sort.ts";

Deno.test("sortInSlices: the same order as Array.prototype.sort, ties kept in input order", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 5 * SORT_SLICE + 17 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer(),
      async (n, keys, seed) => {
        let x = seed | 1;
        const rnd = () => (x = (x * 1103515245 + 12345) | 0) >>> 0;
        const items = Array.from({ length: n }, (_, i) => ({ k: rnd() % keys, i }));
        const cmp = (a: { k: number }, b: { k: number }) => a.k - b.k;
        const want = [...items].sort(cmp);
        let turns = 0;
        const got = await sortInSlices(items, cmp, () => (turns++, Promise.resolve()));
        assert.equal(got, items, "sorted in place");
        assert.deepEqual(got, want);
        if (n > SORT_SLICE) assert.ok(turns >= Math.floor(n / SORT_SLICE), "turns while sorting");
      },
    ),
    { numRuns: 30 },
  );
});
