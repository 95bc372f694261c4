/**
 * Property rollups for parts written before them: the backfill gives them a few parts at a time (bounded per
 * call, resumable: what is done is what has an entry of the current version), questions read the parts
 * still without one meanwhile, with the same answers as the scan; a table of an older version is rebuilt;
 * deleting a part's table leaves no chunk behind.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillPropRollups } from "../../../lib/jobs/prop_rollup_backfill.ts";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { propAnswers } from "../../../lib/query/prop_rollup/planner.ts";
import {
  deletePropRollup,
  hasPropRollup,
  PROP_ROLLUP_VERSION,
  type PropRollupEntry,
  propRollupKeys,
} from "../../../lib/query/prop_rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
  filters: [{ field: "event_type", op: "eq", value: "purchase" }],
};
const asks: AggregateOptions[] = [
  { metrics: ["visitors", "events"], breakdown: ["prop:plan"] },
  { metrics: ["events", "visitors"], breakdown: ["prop:amount"], limit: 2 },
];

const purchases = Array.from({ length: 120 }, (_, i) =>
  ev({
    id: `p${i}`,
    received_at: NOW - (1 + (i % 6)) * DAY + i * 97_000,
    anonymous_id: `v${i % 13}`,
    event_type: i % 4 ? "purchase" : "$pageview",
    properties: {
      plan: ["pro", "team", "starter"][i % 3],
      amount: (i % 5) * 10,
      ...(i % 7 ? {} : { coupon: null }),
    },
  }));

const tables = async (deps: Awaited<ReturnType<typeof testDeps>>) => {
  const out: boolean[] = [];
  for (const p of await listParts(deps.kv, "org1", "production", "ev")) {
    out.push(await hasPropRollup(deps.kv, p.meta.id));
  }
  return out;
};

Deno.test("property rollup backfill: bounded per call, resumable, answers equal the scan all along", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  await store(deps.kv, { events: purchases });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  // parts written before property rollups (compaction may write them now)
  for (const p of await listParts(deps.kv, "org1", "production", "ev")) {
    await deletePropRollup(deps.kv, p.meta.id);
  }
  const engine = createEngine(deps);
  const want = await engine.aggregateMany(scope, asks);
  const wantKeys = await engine.propertyKeys(scope, "purchase");
  const parts = (await tables(deps)).length;
  assert.ok(parts >= 6, `${parts} parts`);
  assert.deepEqual(await tables(deps), Array(parts).fill(false));

  let calls = 0;
  for (;;) {
    const planner = propAnswers(deps, new Source(deps), 1 << 20);
    assert.deepEqual(await planner.aggregate(scope, asks), want);
    assert.deepEqual(await planner.keys(scope, "purchase"), wantKeys);
    const r = await backfillPropRollups(deps, "org1", "production", { maxParts: 2 });
    calls++;
    assert.ok(r.parts <= 2);
    if (r.remaining === 0) break;
  }
  assert.equal(calls, Math.ceil(parts / 2));
  assert.deepEqual(await tables(deps), Array(parts).fill(true));
  const planner = propAnswers(deps, new Source(deps), 1 << 20);
  assert.deepEqual(await planner.aggregate(scope, asks), want);
  assert.equal(planner.last.built, 0, "every part answered from its table");
  // nothing left to do
  assert.deepEqual(await backfillPropRollups(deps, "org1", "production"), {
    parts: 0,
    remaining: 0,
    bytes: 0,
  });
  deps.kv.close();
});

Deno.test("property rollup backfill: a table of an older version is rebuilt; deleting one leaves no chunk", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  await store(deps.kv, { events: purchases.slice(0, 30) });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await backfillPropRollups(deps, "org1", "production", { maxParts: 100 });
  const [{ meta }] = await listParts(deps.kv, "org1", "production", "ev");
  const key = propRollupKeys.entry(meta.id);
  const entry = (await deps.kv.get<PropRollupEntry>(key)).value!;
  await deps.kv.set(key, { ...entry, v: PROP_ROLLUP_VERSION - 1 });
  assert.equal(await hasPropRollup(deps.kv, meta.id), false);
  const r = await backfillPropRollups(deps, "org1", "production", { maxParts: 100 });
  assert.equal(r.parts, 1);
  assert.equal(await hasPropRollup(deps.kv, meta.id), true);
  await deletePropRollup(deps.kv, meta.id);
  assert.equal(await hasPropRollup(deps.kv, meta.id), false);
  let chunks = 0;
  for await (const _ of deps.kv.list({ prefix: propRollupKeys.chunks(meta.id) })) chunks++;
  assert.equal(chunks, 0);
  deps.kv.close();
});
