/** A read over parts that keep changing is repeated until it sees one list, and fails rather than guess. */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/source.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";

/** An index entry only: enough to change the part list a read sees. */
const publishEntry = (kv: Deno.Kv, id: string) =>
  kv.set(keys.part("org1", "production", "ev", id), { id, kind: "ev", rows: 0, chunks: 0 });

Deno.test("source: a read during which a part is published is done again; a list that settles gives its answer", async () => {
  const deps = await testDeps();
  const source = new Source(deps);
  const seen: number[] = [];
  const out = await source.consistent("org1", "production", "ev", async (parts) => {
    seen.push(parts.length);
    if (seen.length <= 3) await publishEntry(deps.kv, `p${seen.length}`);
    return parts.length;
  });
  assert.deepEqual(seen, [0, 1, 2, 3]);
  assert.equal(out, 3);
  deps.kv.close();
});

Deno.test("source: a part list that changes during every read fails the question instead of answering inexactly", async () => {
  const deps = await testDeps();
  const source = new Source(deps);
  let reads = 0;
  await assert.rejects(
    source.consistent("org1", "production", "ev", async () => {
      await publishEntry(deps.kv, `p${++reads}`);
      return reads;
    }),
    /changed during each of 8 reads/,
  );
  assert.equal(reads, 8);
  deps.kv.close();
});
