/**
 * The rows a paths question keeps grow from part of their bound (lib/query/sequence/paths_rows.ts): every
 * row pushed is kept in order with all its fields, the room never passes the bound, and the walk over rows
 * that grew equals the walk over rows made at their whole size.
 */
import assert from "node:assert/strict";
import { Rows, walk } from "../../../lib/query/sequence/paths_rows.ts";

const fill = (rows: Rows, n: number) => {
  for (let k = 0; k < n; k++) {
    // sessions of 5 rows, 3 sessions a visitor; times out of order inside a session
    rows.push(
      1000 + ((k * 7) % 5),
      k % 3,
      k,
      Math.floor(k / 5),
      Math.floor(k / 15),
      k % 4,
      k % 5 === 2 ? 1 : 0,
      0,
      k,
    );
  }
};

Deno.test("paths rows: rows that grow past their first room keep every row, within the bound", () => {
  const n = 5_000;
  const grown = new Rows(1_024, n);
  fill(grown, n);
  assert.equal(grown.n, n);
  assert.ok(grown.t.length <= n, "the room stays within the bound");
  for (let k = 0; k < n; k++) {
    assert.equal(grown.seq[k], k);
    assert.equal(grown.pos![k], k);
    assert.equal(grown.ses[k], Math.floor(k / 5));
    assert.equal(grown.anchor[k], k % 5 === 2 ? 1 : 0);
  }
  const whole = new Rows(n);
  fill(whole, n);
  const o = { anchor: { event_type: "$pageview" }, direction: "after" as const, depth: 3 };
  assert.deepEqual(walk(grown, ["a", "b", "c", "d"], o, 3), walk(whole, ["a", "b", "c", "d"], o, 3));
});
