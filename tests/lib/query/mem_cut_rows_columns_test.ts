/**
 * A cut hour's rows are taken from a part one column at a time (lib/query/rollup/reader.ts rowsOfColumns):
 * each decoded column is let go once its rows are taken, instead of the whole part's columns decoded and held
 * together (explain-a-change's periods cut several parts at 10M events). The rows are those of the whole batch;
 * a string column's dictionary holds only the strings the rows use (not the part's whole dictionary).
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { decodeBatch, ownsSegment } from "../../../lib/parts/codec.ts";
import { type Batch, batchOfRows, numAt, strAt } from "../../../lib/parts/columns.ts";
import { listParts, partColumns, readBlob } from "../../../lib/parts/store.ts";
import { rowsOfColumns } from "../../../lib/query/rollup/reader.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");

/** Each column's values row by row (what a reader sees), and how many strings each dictionary holds. */
const valuesOf = (b: Batch) =>
  Object.fromEntries(
    Object.keys(b.cols).sort().map((name) => {
      const c = b.cols[name];
      const at = Array.from({ length: b.n }, (_, i) => c.kind === "num" ? numAt(c, i) : strAt(c, i));
      return [name, at];
    }),
  );
const dictSizes = (b: Batch) =>
  Object.fromEntries(
    Object.entries(b.cols).flatMap(([name, c]) => c.kind === "str" ? [[name, c.dict.length]] : []),
  );

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
  const whole = batchOfRows(await read(), rows);
  assert.deepEqual(valuesOf(got), valuesOf(whole));
  assert.deepEqual(Object.keys(got.cols).sort(), names.sort());
  // only the strings the rows use: each dictionary as long as its distinct values among them
  assert.deepEqual(
    dictSizes(got),
    Object.fromEntries(
      Object.entries(valuesOf(whole)).flatMap(([name, v]) =>
        whole.cols[name].kind === "str" ? [[name, new Set(v.filter((x) => x !== null)).size]] : []
      ),
    ),
  );
  assert.ok((whole.cols.id as { dict: string[] }).dict.length > dictSizes(got).id);
  deps.kv.close();
});

Deno.test("cut rows: a column inflated for itself alone is freed once its rows are taken; one sharing a buffer is left", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const events = Array.from(
    { length: 200 },
    (_, i) =>
      ev({
        id: `e${i}`,
        received_at: NOW - 3_600_000 + i * 1_000,
        anonymous_id: `v${i % 7}`,
        path: `/p${i % 3}`,
      }),
  );
  await store(deps.kv, { events });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const [{ meta }] = await listParts(deps.kv, "org1", "production", "ev");
  const lazy = await decodeBatch(
    { n: meta.rows, columns: await partColumns(deps.kv, meta) },
    await readBlob(deps.kv, meta),
  );
  const decoded = Object.entries(lazy.cols);
  const own = decoded.filter(([, c]) => ownsSegment(c));
  assert.ok(own.length > 5, `${own.length} columns on segments of their own`);
  const rows = [0, 5, 9];
  const expected = batchOfRows({ n: lazy.n, cols: Object.fromEntries(decoded) }, rows);
  const got = rowsOfColumns(lazy, rows);
  assert.deepEqual(valuesOf(got), valuesOf(expected));
  for (const [name, c] of own) {
    assert.equal((c.kind === "num" ? c.values : c.codes).length, 0, `${name} let go`);
  }
  // two columns viewing one buffer (as a shared segment's do): neither is freed, the second read whole after
  const buf = new ArrayBuffer(32);
  const shared: Batch = {
    n: 2,
    cols: {
      a: { kind: "num", values: new Float64Array(buf, 0, 2).fill(1) },
      b: { kind: "num", values: new Float64Array(buf, 16, 2).fill(2) },
    },
  };
  assert.deepEqual(rowsOfColumns(shared, [1]).cols.b, { kind: "num", values: Float64Array.of(2) });
  assert.equal(buf.detached, false);
  deps.kv.close();
});
