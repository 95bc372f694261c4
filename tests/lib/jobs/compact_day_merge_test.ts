import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { generateSite } from "../../../lib/demo/site.ts";
import { partRecords } from "../../../lib/parts/build.ts";
import { listParts, type PartMeta } from "../../../lib/parts/store.ts";
import { createEngine, type Scope } from "../../../lib/query/api.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "../query/fixtures.ts";

const DAY = 86_400_000;
const END = Date.parse("2026-11-20T00:00:00Z");

async function eventParts(kv: Deno.Kv, org = "o"): Promise<PartMeta[]> {
  return (await listParts(kv, org, "production", "ev")).map((p) => p.meta);
}

async function allRecords(kv: Deno.Kv): Promise<string> {
  const out: StoredEvent[] = [];
  for (const meta of await eventParts(kv)) {
    out.push(...await partRecords(kv, "o", "production", meta) as StoredEvent[]);
  }
  return JSON.stringify(out.sort((a, b) => (a.id < b.id ? -1 : 1)));
}

Deno.test("compaction: a closed day's event parts merge by columns into one part past the record merge's 50,000 rows", async () => {
  const deps = await testDeps();
  // a closed day written as parts of 8,500 rows (as compaction leaves a busy day before its merge): 51,000 rows,
  // just past what the record merge takes
  await generateSite(deps, {
    org: "o",
    touchpoint: "tp",
    events: 51_000,
    visitors: 5_100,
    hits: 10,
    days: 1,
    seed: 3,
    end: END,
    direct: true,
    partRows: 8_500,
  });
  deps.clock.set(END + DAY / 2);
  const before = await eventParts(deps.kv);
  assert.equal(before.length, 6);
  const scope: Scope = {
    org: "o",
    env: "production",
    from: END - DAY,
    to: END,
    timezone: "Europe/Berlin",
  };
  const q = {
    metrics: ["visitors", "sessions", "pageviews", "bounce_rate", "session_duration_s"] as const,
    breakdown: ["page" as const],
    limit: 20,
  };
  const answer = await createEngine(deps).aggregate(scope, { ...q, metrics: [...q.metrics] });
  const records = await allRecords(deps.kv);

  const report = await compact(deps, "o", "production", "ev", { graceMs: 0 });
  const after = await eventParts(deps.kv);
  assert.deepEqual(after.map((p) => p.rows), [51_000], "the day in one part");
  assert.equal(report.merged, before.length);
  assert.equal(await allRecords(deps.kv), records, "the same records");
  assert.deepEqual(await createEngine(deps).aggregate(scope, { ...q, metrics: [...q.metrics] }), answer);
  deps.kv.close();
});

Deno.test("compaction: a few late rows of a closed day stay in a part of their own until they are a quarter of the day's", async () => {
  const deps = await testDeps();
  const day = END - 3 * DAY;
  const rows = (n: number, tag: string) =>
    Array.from(
      { length: n },
      (_, i) =>
        ev({ received_at: day + i * 1000, anonymous_id: `${tag}${i % 9}`, session_id: `${tag}s${i % 13}` }),
    );
  deps.clock.set(END);
  await store(deps.kv, { events: rows(400, "a") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await store(deps.kv, { events: rows(300, "b") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  assert.deepEqual((await eventParts(deps.kv, "org1")).map((p) => p.rows), [700], "comparable parts merge");
  await store(deps.kv, { events: rows(20, "c") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  assert.deepEqual((await eventParts(deps.kv, "org1")).map((p) => p.rows).sort((a, b) => a - b), [20, 700]);
  for (const tag of ["d", "e", "f", "g", "h", "i", "j", "k"]) {
    await store(deps.kv, { events: rows(20, tag) });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  }
  // the late parts merged among themselves; at 180 rows (more than a quarter of 700) they joined the day's
  assert.deepEqual((await eventParts(deps.kv, "org1")).map((p) => p.rows), [880]);
  deps.kv.close();
});
