/**
 * A cut hour's rows are taken from a part one column at a time (lib/query/rollup/reader.ts rowsOfColumns):
 * each decoded column is let go once its rows are taken, instead of the whole part's columns decoded and held
 * together (explain-a-change's periods cut several parts at 10M events). The rows are those of the whole batch.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { decodeBatch } from "../../../lib/parts/codec.ts";
import { batchOfRows } from "../../../lib/parts/columns.ts";
import { listParts, partColumns, readBlob } from "../../../lib/parts/store.ts";
import { rowsOfColumns } from "../../../lib/query/rollup/reader.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");

Deno.test("cut rows: taken column by column, each decoded column let go, equal to the whole batch's rows", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const events = Array.from({ length: 300 }, (_, i) =>
    ev({
      id: `e${i}`,
      received_at: NOW - 5 * 3_600_000 + i * 60_000,
      anonymous_id: `v${i % 17}`,
      session_id: `s${i % 23}`,
      event_type: i % 3 ? "$pageview" : "sign_up",
      path: `/p${i % 5}`,
    }));
  await store(deps.kv, { events });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const [{ meta }] = await listParts(deps.kv, "org1", "production", "ev");
  const read = async () =>
    decodeBatch({ n: meta.rows, columns: await partColumns(deps.kv, meta) }, await readBlob(deps.kv, meta));
  const rows = Array.from({ length: meta.rows }, (_, i) => i).filter((i) => i % 4 === 1);
  const lazy = await read();
  const names = Object.keys(lazy.cols);
  assert.ok(names.length > 10, `${names.length} columns`);
  const got = rowsOfColumns(lazy, rows);
  // every decoded column was let go by the batch it came from
  assert.deepEqual(Object.keys(lazy.cols), []);
  assert.deepEqual(got, batchOfRows(await read(), rows));
  assert.deepEqual(Object.keys(got.cols).sort(), names.sort());
  deps.kv.close();
});
