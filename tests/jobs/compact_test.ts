import assert from "node:assert/strict";
import { compact, type CompactStep } from "../../lib/jobs/compact.ts";
import { openEngine } from "../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../lib/query/api.ts";
import { naiveAggregate } from "../../lib/query/naive.ts";
import { listParts, partColumns, readBlob } from "../../lib/parts/store.ts";
import { decodeBatch } from "../../lib/parts/codec.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { createContext } from "../../lib/context.ts";
import { ingestWebEvents } from "../../lib/ingest/web.ts";
import { testDeps } from "../helpers/deps.ts";
import { ev, hit, store } from "../lib/query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
};
const q: AggregateOptions = {
  metrics: ["visitors", "sessions", "pageviews", "events", "bounce_rate"],
  breakdown: ["page"],
};

function site(n: number, dayOffset: number, tag: string): StoredEvent[] {
  return Array.from({ length: n }, (_, i) =>
    ev({
      received_at: NOW - dayOffset * DAY + i * 1000,
      anonymous_id: `v${i % 37}`,
      session_id: `${tag}-s${i % 53}`,
      path: ["/", "/pricing", "/blog", "/signup"][i % 4],
      event_type: i % 5 === 0 ? "$pageleave" : "$pageview",
    }));
}

async function chunkCount(kv: Deno.Kv) {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["part_chunk"] })) n++;
  return n;
}

async function assertClean(kv: Deno.Kv) {
  const parts = await listParts(kv, "org1", "production", "ev");
  assert.ok(parts.every((p) => !p.meta.pending), "no part left pending");
  assert.equal(await chunkCount(kv), parts.reduce((s, p) => s + p.meta.chunks, 0), "no orphan chunks");
  let raw = 0;
  for await (const _ of kv.list({ prefix: keys.rawEvents("org1", "production") })) raw++;
  assert.equal(raw, 0, "raw keys of compacted windows are gone");
}

const fail = (at: CompactStep) => (step: CompactStep) => {
  if (step === at) throw new Error(`crash at ${step}`);
};

for (const step of ["chunks_written", "published", "raw_partly_deleted", "raw_deleted"] as const) {
  Deno.test(`compaction: a crash after "${step}" loses nothing and counts nothing twice, and a rerun finishes`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const all = site(450, 3, "a");
    await store(deps.kv, { events: all });
    const expected = naiveAggregate(all, scope, q);
    await assert.rejects(
      compact(deps, "org1", "production", "ev", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await openEngine(deps).aggregate(scope, q), expected);
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.deepEqual(await openEngine(deps).aggregate(scope, q), expected);
    await assertClean(deps.kv);
    deps.kv.close();
  });
}

for (const step of ["merge_chunks_written", "merge_swapped"] as const) {
  Deno.test(`compaction: a crash after "${step}" of a merge keeps answers exact and leaves no garbage after a rerun`, async () => {
    const deps = await testDeps();
    deps.clock.set(NOW);
    const first = site(120, 3, "a");
    await store(deps.kv, { events: first });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const late = site(80, 3, "b").map((e) => ({ ...e, received_at: e.received_at + 500 })); // same closed day
    await store(deps.kv, { events: late });
    const expected = naiveAggregate([...first, ...late], scope, q);
    await assert.rejects(
      compact(deps, "org1", "production", "ev", { graceMs: 0, failAt: fail(step) }),
      /crash/,
    );
    assert.deepEqual(await openEngine(deps).aggregate(scope, q), expected);
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    assert.deepEqual(await openEngine(deps).aggregate(scope, q), expected);
    assert.equal(
      (await listParts(deps.kv, "org1", "production", "ev")).length,
      1,
      "the day's parts merged into one",
    );
    await assertClean(deps.kv);
    deps.kv.close();
  });
}

Deno.test("compaction: open windows stay raw; a late arrival in a compacted window lands in a later part", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const old = site(50, 2, "a");
  const fresh = ev({ received_at: NOW - 30_000, anonymous_id: "new" });
  await store(deps.kv, { events: [...old, fresh] });
  await compact(deps, "org1", "production", "ev");
  assert.equal(
    (await openEngine(deps).freshness("org1", "production")).raw_events,
    1,
    "younger than the grace period",
  );
  const late = ev({ received_at: NOW - 2 * DAY + 10, anonymous_id: "late", path: "/late" });
  await store(deps.kv, { events: [late] });
  const want = naiveAggregate([...old, fresh, late], scope, q);
  assert.deepEqual(await openEngine(deps).aggregate(scope, q), want);
  deps.clock.advance(10 * 60_000);
  await compact(deps, "org1", "production", "ev");
  assert.deepEqual(await openEngine(deps).aggregate(scope, q), want);
  assert.equal((await openEngine(deps).freshness("org1", "production")).raw_events, 0);
  deps.kv.close();
});

Deno.test("compaction: addresses never enter parts", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const ctx = createContext(deps);
  const org = {
    id: "org1",
    name: "A",
    plan: "professional" as const,
    timezone: "UTC",
    active: true,
    created_at: "",
  };
  const tp = {
    id: "tp1",
    org: "org1",
    name: "s",
    kind: "website" as const,
    archived: false,
    environments: { production: { domain: "acme.test", enabled: true } },
    created_at: "",
  };
  await ingestWebEvents(ctx, { org, touchpoint: tp, env: "production" }, [{
    event_id: "00000000-0000-4000-8000-000000000001",
    anonymous_id: "a",
    session_id: "s",
    sequence_no: 0,
    platform: "web",
    event_type: "$pageview",
    screen: "/",
    properties: { path: "/", url: "https://acme.test/" },
    device_time: new Date(NOW - DAY).toISOString(),
  }], { receivedAt: NOW - DAY, ip: "81.2.69.142", userAgent: "Mozilla/5.0 Chrome/131.0.0.0" });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.equal(parts.length, 1);
  const b = await decodeBatch(
    { n: parts[0].meta.rows, columns: await partColumns(deps.kv, parts[0].meta) },
    await readBlob(deps.kv, parts[0].meta),
  );
  const text = JSON.stringify(Object.values(b.cols).map((c) => (c.kind === "str" ? c.dict : [])));
  assert.ok(text.includes("Berlin"), "derived location is kept");
  assert.ok(!text.includes("81.2.69.142"), "the address is not");
  deps.kv.close();
});

Deno.test("compaction: a verification outcome stored after the hit was compacted still wins, and survives a merge", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const h = hit({ timestamp: NOW - DAY, verification: "pending" });
  await store(deps.kv, { hits: [h, hit({ timestamp: NOW - DAY + 5 })] });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  await deps.kv.set(keys.verification("org1", h.id), {
    outcome: "spoofed",
    method: "reverse_dns",
    reason: "no match",
    checked_at: NOW,
  });
  const hs = { org: "org1", env: "production" as const, from: NOW - 2 * DAY, to: NOW, timezone: "UTC" };
  const byOutcome = async () =>
    (await openEngine(deps).hitsAggregate(hs, { metrics: ["requests"], breakdown: ["verification"] })).rows
      .map((r) => [r.key.verification, r.metrics.requests]);
  assert.deepEqual(await byOutcome(), [["spoofed", 1], ["verified", 1]]);
  await store(deps.kv, { hits: [hit({ timestamp: NOW - DAY + 9 })] });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  assert.equal((await listParts(deps.kv, "org1", "production", "hit")).length, 1);
  assert.deepEqual(await byOutcome(), [["verified", 2], ["spoofed", 1]]);
  deps.kv.close();
});
