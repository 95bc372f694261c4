import assert from "node:assert/strict";
import { arrivals, latestArrival } from "../../../lib/parts/arrivals.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { createEngine } from "../../../lib/query/api.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, hit, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;

Deno.test("arrivals: none yet, then the newest raw event and hit by receive time", async () => {
  const deps = await testDeps();
  assert.deepEqual(await arrivals(deps, "org1", "production"), { events: null, hits: null });
  assert.equal(await latestArrival(deps, "org1", "production"), null);
  await store(deps.kv, {
    events: [ev({ received_at: NOW - 5000 }), ev({ received_at: NOW - 9000 })],
    hits: [hit({ timestamp: NOW - 2000 })],
  });
  assert.deepEqual(await arrivals(deps, "org1", "production"), { events: NOW - 5000, hits: NOW - 2000 });
  assert.equal(await latestArrival(deps, "org1", "production"), NOW - 2000);
  assert.deepEqual(await arrivals(deps, "org1", "staging"), { events: null, hits: null });
  deps.kv.close();
});

Deno.test("arrivals: once compaction leaves no raw event, the newest event part answers", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const events = Array.from({ length: 20 }, (_, i) => ev({ received_at: NOW - 2 * DAY + i * 1000 }));
  await store(deps.kv, { events });
  await compact(deps, "org1", "production", "ev");
  let raw = 0;
  for await (const _ of deps.kv.list({ prefix: ["raw_ev", "org1", "production"] })) raw++;
  assert.equal(raw, 0, "compacted");
  assert.equal((await arrivals(deps, "org1", "production")).events, NOW - 2 * DAY + 19_000);
  deps.kv.close();
});

Deno.test("arrivals: a hit compacted into a part still counts, by its receive time", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const hits = Array.from({ length: 20 }, (_, i) => hit({ timestamp: NOW - 2 * DAY + i * 1000 }));
  hits[19] = { ...hits[19], timestamp: NOW - 3 * DAY }; // received last, stamped earlier
  await store(deps.kv, { hits });
  await compact(deps, "org1", "production", "hit");
  let raw = 0;
  for await (const _ of deps.kv.list({ prefix: ["raw_hit", "org1", "production"] })) raw++;
  assert.equal(raw, 0, "compacted");
  assert.equal((await arrivals(deps, "org1", "production")).hits, NOW - 2 * DAY + 19_000);
  assert.equal(await latestArrival(deps, "org1", "production"), NOW - 2 * DAY + 19_000);
  deps.kv.close();
});

Deno.test("arrivals: through the engine the newest part comes from its kept index (no listing per answer); a new part is seen", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const engine = createEngine(deps);
  const newest = (kind: "ev" | "hit") => engine.newestPartArrival("org1", "production", kind);
  await store(deps.kv, { events: [ev({ received_at: NOW - 2 * DAY })] });
  await compact(deps, "org1", "production", "ev");
  assert.equal((await arrivals(deps, "org1", "production", newest)).events, NOW - 2 * DAY);
  const list = deps.kv.list.bind(deps.kv);
  let partLists = 0;
  deps.kv.list = ((sel: Deno.KvListSelector, opts?: Deno.KvListOptions) => {
    if ("prefix" in sel && sel.prefix[0] === "part") partLists++;
    return list(sel, opts);
  }) as typeof deps.kv.list;
  assert.equal((await arrivals(deps, "org1", "production", newest)).events, NOW - 2 * DAY);
  assert.equal(partLists, 0, "the unchanged index was not listed again");
  await store(deps.kv, { events: [ev({ received_at: NOW - DAY })] });
  await compact(deps, "org1", "production", "ev");
  partLists = 0;
  assert.equal(await latestArrival(deps, "org1", "production", newest), NOW - DAY, "the new part is seen");
  assert.equal(partLists, 1, "listed once (events), as the index changed; hits have none");
  deps.kv.list = list;
  deps.kv.close();
});
