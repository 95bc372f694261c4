/**
 * A paths question's tally frees its arrays at once (sequence/paths_rows.ts PathTally): those outgrown as
 * anchored sessions are added (doubling: ~15 MB made and dropped a cold paths question at 10M events) and
 * its paths once counted into the answer, instead of leaving them dead for V8's next full collection. The
 * answer is the one a tally of the same sessions given in another order counts.
 */
import assert from "node:assert/strict";
import { PathTally } from "../../../lib/query/sequence/paths_rows.ts";
import type { PathsOptions } from "../../../lib/query/sequence_types.ts";

const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;
type Inside = { vis: Int32Array; labs: Int32Array };

Deno.test("path tally: outgrown and counted arrays are detached, the answer unchanged", () => {
  const names = ["/", "/a", "/b", "/c", "(end)"];
  const o = { page: "/", depth: 3 } as unknown as PathsOptions;
  const grown = new PathTally(3, 4), path = new Int32Array(3);
  const first = { ...(grown as unknown as Inside) };
  const sessions = 40_000; // past the 16,384 a tally starts with
  for (let k = 0; k < sessions; k++) {
    path[0] = 0, path[1] = 1 + (k % 3), path[2] = k % 5 === 0 ? 4 : 1 + (k % 2);
    grown.add(k % 7_000, path, 1 + (k % 3));
  }
  assert.ok(detached(first.vis) && detached(first.labs), "outgrown arrays are freed");
  const held = { ...(grown as unknown as Inside) };
  const answer = grown.result(names, o);
  assert.ok(detached(held.vis) && detached(held.labs), "counted arrays are freed");
  // the same sessions added in reverse order: the same answer
  const again = new PathTally(3, 4);
  for (let k = sessions - 1; k >= 0; k--) {
    path[0] = 0, path[1] = 1 + (k % 3), path[2] = k % 5 === 0 ? 4 : 1 + (k % 2);
    again.add(k % 7_000, path, 1 + (k % 3));
  }
  assert.deepEqual(again.result(names, o), answer);
  assert.ok(JSON.stringify(answer).includes("/a"));
});
