/**
 * A batch the scan keeps (codec.ts decodeBatch `keep`, used by the part cache in columns/source.ts): each
 * column not yet read holds a copy of its own stored bytes, so the range read from KV can be let go at once
 * instead of being held, whole, for as long as one of the batch's columns is never read.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { decodeBatch } from "../../../lib/parts/codec.ts";
import { release } from "../../../lib/parts/packed_arrays.ts";
import { listParts, partColumns, readRange } from "../../../lib/parts/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");

/** Every column as plain values (reading each one decodes it). */
const plain = (cols: Record<string, unknown>) =>
  Object.fromEntries(
    Object.keys(cols).sort().map((name) => {
      const c = cols[name] as {
        kind: string;
        values?: Float64Array;
        codes?: ArrayLike<number>;
        dict?: string[];
      };
      return [name, c.kind === "num" ? [...c.values!] : { codes: [...Array.from(c.codes!)], dict: c.dict }];
    }),
  );

Deno.test("kept batch: its columns read whole after the bytes read from KV are let go", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const events = Array.from({ length: 400 }, (_, i) =>
    ev({
      id: `e${i}`,
      received_at: NOW - 5 * 3_600_000 + i * 30_000,
      anonymous_id: `v${i % 19}`,
      session_id: `s${i % 29}`,
      event_type: i % 4 ? "$pageview" : "sign_up",
      path: `/p${i % 7}`,
      properties: i % 3 ? { plan: `p${i % 5}` } : {},
    }));
  try {
    await store(deps.kv, { events });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const [{ meta }] = await listParts(deps.kv, "org1", "production", "ev");
    const columns = await partColumns(deps.kv, meta);
    const only = (c: string) => c !== "id";
    const range = () => readRange(deps.kv, meta, 0, meta.bytes);
    // as the part cache reads a part: a range from KV, decoded, then the range let go
    const read = await range();
    const kept = await decodeBatch({ n: meta.rows, columns }, read.bytes, only, read.base, true);
    release(read.bytes);
    assert.equal(read.bytes.buffer.byteLength, 0, "the range read is let go");
    // the same part read and decoded with its bytes held
    const whole = await range();
    const expected = await decodeBatch({ n: meta.rows, columns }, whole.bytes, only, whole.base);
    const names = Object.keys(expected.cols);
    assert.ok(names.length > 10, `${names.length} columns`);
    assert.deepEqual(plain(kept.cols), plain(expected.cols));
  } finally {
    deps.kv.close();
  }
});
