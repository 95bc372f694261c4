/**
 * A feature table read from KV (feature_rollup/store.ts readFeatureTable) lets go of its KV chunks once
 * copied into the section and of the section's stored bytes once inflated (packed_arrays.ts `release`):
 * freed at once instead of at V8's next full collection (behavior_features at 10M events reads its period's
 * tables a window at a time, each window's stored bytes left dead until then). The table read is the one
 * stored.
 */
import assert from "node:assert/strict";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import { buildFeatureTable } from "../../../lib/query/feature_rollup/build.ts";
import {
  decodeFeatureTable,
  encodeFeatureTable,
  readFeatureEntry,
  readFeatureTable,
  storeFeatureTable,
  WHOLE_SEC,
} from "../../../lib/query/feature_rollup/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");

Deno.test("feature tables: the stored bytes and chunks read are detached once the table is decoded", async () => {
  const deps = await testDeps();
  const events = [];
  for (let v = 0; v < 3000; v++) {
    events.push(ev({
      received_at: NOW - 3_600_000 + v * 10,
      anonymous_id: `v${v}`,
      session_id: `s${v}`,
      event_type: "$autocapture",
      element: `E${v % 50}`,
      path: `/p${v % 40}`,
      properties: { action: "click" },
    }));
  }
  const tables = buildFeatureTable(await buildEventBatch(events), (i) => i);
  await storeFeatureTable(deps.kv, "part-a", tables);
  const entry = await readFeatureEntry(deps.kv, "part-a");
  assert.ok(entry);
  const transfer = ArrayBuffer.prototype.transfer;
  const detached: number[] = [];
  ArrayBuffer.prototype.transfer = function (this: ArrayBuffer, n?: number) {
    detached.push(this.byteLength);
    return transfer.call(this, n);
  };
  let got;
  try {
    got = await readFeatureTable(deps.kv, "part-a", entry, WHOLE_SEC);
  } finally {
    ArrayBuffer.prototype.transfer = transfer;
  }
  assert.ok(got);
  const [stored, chunks] = entry.secs[WHOLE_SEC];
  // the section's buffer, and each chunk copied into it
  assert.ok(detached.includes(stored), `stored ${stored} bytes, detached ${detached}`);
  assert.equal(detached.length, chunks + 1);
  assert.deepEqual(got, decodeFeatureTable(encodeFeatureTable(tables.whole)));
  deps.kv.close();
});
