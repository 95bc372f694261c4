import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { hasRollup } from "../../../lib/query/rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "../query/reference.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
};
const q: AggregateOptions = { metrics: ["visitors", "pageviews", "events"], breakdown: ["page"] };

/** Removes a part's rollup, as a part written before rollups has none. */
async function dropRollup(kv: Deno.Kv, partId: string) {
  await kv.delete(keys.rollup(partId));
  for await (const e of kv.list({ prefix: keys.rollupChunks(partId) })) await kv.delete(e.key);
}

Deno.test("rollups: parts without one are answered by the scan; compaction runs add theirs, a few at a time, then rollups answer", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const all = Array.from({ length: 400 }, (_, i) =>
    ev({
      received_at: NOW - (1 + (i % 4)) * DAY + i * 1000,
      anonymous_id: `v${i % 31}`,
      session_id: `s${i % 43}`,
      path: ["/", "/pricing", "/blog"][i % 3],
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.equal(parts.length, 4);
  for (const p of parts) assert.ok(await hasRollup(deps.kv, p.meta.id), "compaction writes a part's rollup");
  for (const p of parts) await dropRollup(deps.kv, p.meta.id);

  const rollups = () => new RollupSource(deps, new Source(deps)).answer(scope, [q]);
  assert.deepEqual(await rollups(), [null], "a part without a rollup: the scan answers");

  assert.deepEqual(await backfillRollups(deps, "org1", "production", { maxParts: 1 }), {
    parts: 1,
    remaining: 3,
  });
  assert.deepEqual(await rollups(), [null]);
  const report = await compact(deps, "org1", "production", "ev", { graceMs: 0 }); // nothing raw: backfill only
  assert.equal(report.rollups, 3);
  assert.deepEqual(await rollups(), [naiveAggregate(all, scope, q)]);
  assert.deepEqual(await backfillRollups(deps, "org1", "production"), { parts: 0, remaining: 0 });
  deps.kv.close();
});
