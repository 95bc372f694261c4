/** Column building offers the event loop turns inside a column, not only between columns. */
import assert from "node:assert/strict";
import { numCol, SLICE_ROWS, strAt, strCol } from "../../../lib/parts/columns.ts";

Deno.test("columns: a string or number column of many rows offers a turn every slice, with the same values", async () => {
  const n = 5 * SLICE_ROWS + 3;
  let turns = 0;
  const turn = () => (turns++, Promise.resolve());
  const s = await strCol(n, (i) => (i % 7 === 0 ? null : `v${i % 5}`), turn);
  assert.equal(turns, 5);
  assert.equal(strAt(s, 0), null);
  assert.equal(strAt(s, 6), "v1");
  assert.equal(s.dict.length, 5);
  turns = 0;
  const v = await numCol(n, (i) => (i % 3 === 0 ? null : i), turn);
  assert.equal(turns, 5);
  assert.ok(Number.isNaN(v.values[0]));
  assert.equal(v.values[n - 2], n - 2);
});
