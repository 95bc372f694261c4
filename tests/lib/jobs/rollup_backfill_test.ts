/**
 * The backfill rebuilds rollups of an older version (written before session facts): until it has, session
 * questions over those parts are the scan's; after, rollups answer them, equal to the reference. A rollup
 * older than version 8 is made again from its part (version 11's reporters come only from the events).
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import {
  hasRollup,
  readRollup,
  readV3,
  readV4,
  ROLLUP_VERSION,
  type RollupEntry,
  wideRowsSec,
} from "../../../lib/query/rollup/store.ts";
import { TOTAL } from "../../../lib/query/rollup/build.ts";
import { factsAsRows, writeV4 } from "../query/rollup_v4.ts";
import { writeV3 } from "../query/rollup_v3.ts";
import type { Rollup } from "../../../lib/query/rollup/build.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "../query/reference.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
const q: AggregateOptions = {
  metrics: ["sessions", "bounce_rate", "session_duration_s", "engaged_visitors", "dropped_events"],
};

Deno.test("rollup backfill: a part's rollup of an older version is rebuilt, then session questions come from rollups", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  // sessions crossing midnight UTC: each in two parts
  const all = Array.from({ length: 300 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 600_000 + i * 4_000,
      anonymous_id: `v${i % 17}`,
      session_id: `s${i % 29}`,
      sequence_no: i % 5,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  // as a deployment from before session facts left them: entries of version 1
  for (const p of parts) {
    const entry = (await deps.kv.get<{ v: number }>(keys.rollup(p.meta.id))).value!;
    await deps.kv.set(keys.rollup(p.meta.id), { ...entry, v: 1 });
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
  }
  const rollups = () => new RollupSource(deps, new Source(deps)).answer(scope, [q]);
  assert.deepEqual(await rollups(), [null], "an older rollup: the scan answers");

  const first = await backfillRollups(deps, "org1", "production", { maxParts: 2 });
  assert.deepEqual(first, { parts: 2, remaining: parts.length - 2 });
  assert.deepEqual(await rollups(), [null]);
  assert.deepEqual(await backfillRollups(deps, "org1", "production"), {
    parts: parts.length - 2,
    remaining: 0,
  });
  for (const p of parts) {
    assert.equal((await deps.kv.get<{ v: number }>(keys.rollup(p.meta.id))).value?.v, ROLLUP_VERSION);
  }
  assert.deepEqual(await rollups(), [naiveAggregate(all, scope, q)]);
  deps.kv.close();
});

Deno.test("rollup backfill: a version-3 rollup (one blob) is made again as sections with the same answers", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const all = Array.from({ length: 400 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 900_000 + i * 5_000,
      anonymous_id: `v${i % 23}`,
      session_id: `s${i % 31}`,
      sequence_no: (i * 7) % 6,
      path: `/p${i % 5}`,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  const written = new Map<string, Rollup>();
  for (const p of parts) {
    const sections = (await readRollup(deps.kv, p.meta.id))!;
    written.set(p.meta.id, sections);
    await writeV3(deps.kv, p.meta.id, sections);
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
    // what this reads (version 3 had no entries and exits, nor cut visitors); the backfill makes the rollup
    // again from the part
    const { cut: _, ...facts } = sections.facts;
    assert.deepEqual(await readV3(deps.kv, p.meta.id), { ...sections, facts: { ...facts, ends: null } });
  }
  const qs: AggregateOptions[] = [
    q,
    { metrics: ["pageviews", "viewers", "visitors"], breakdown: ["page"] },
    { metrics: ["visitors", "events"], bucket: "day" },
    { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] },
  ];
  const rollups = () => new RollupSource(deps, new Source(deps)).answer(scope, qs);
  assert.deepEqual(await rollups(), qs.map(() => null), "a version-3 rollup: the scan answers");
  assert.deepEqual(await backfillRollups(deps, "org1", "production"), { parts: parts.length, remaining: 0 });
  // the facts made again are those written, row for row (the rows' order may differ)
  for (const p of parts) {
    assert.deepEqual(
      factsAsRows((await readRollup(deps.kv, p.meta.id))!),
      factsAsRows(written.get(p.meta.id)!),
    );
  }
  assert.deepEqual(await rollups(), qs.map((o) => naiveAggregate(all, scope, o)));
  deps.kv.close();
});

Deno.test("rollup backfill: a version-4 rollup (facts whole) is made again with spans and blocks, with the same answers", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  // sessions across midnights (two parts each), several a visitor, some with a bot's events too
  const all = Array.from({ length: 500 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 1_800_000 + i * 6_000,
      anonymous_id: `v${i % 19}`,
      session_id: `s${i % 37}`,
      sequence_no: (i * 5) % 7,
      path: `/p${i % 4}`,
      event_type: i % 5 === 0 ? "sign_up" : "$pageview",
      traffic: i % 11 === 0 ? "bot" : "human",
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  const written = new Map<string, Rollup>();
  for (const p of parts) {
    const r = (await readRollup(deps.kv, p.meta.id))!;
    written.set(p.meta.id, r);
    await writeV4(deps.kv, p.meta.id, r);
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
    assert.deepEqual(factsAsRows((await readV4(deps.kv, p.meta.id))!), factsAsRows(r));
  }
  const qs: AggregateOptions[] = [
    q,
    { metrics: ["pageviews", "viewers", "visitors"], breakdown: ["page"] },
    { metrics: ["sessions", "events"], bucket: "day" },
    { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] },
  ];
  const rollups = () => new RollupSource(deps, new Source(deps)).answer(scope, qs);
  assert.deepEqual(await rollups(), qs.map(() => null), "a version-4 rollup: the scan answers");
  assert.deepEqual(await backfillRollups(deps, "org1", "production"), { parts: parts.length, remaining: 0 });
  for (const p of parts) {
    assert.equal((await deps.kv.get<{ v: number }>(keys.rollup(p.meta.id))).value?.v, ROLLUP_VERSION);
    assert.deepEqual(
      factsAsRows((await readRollup(deps.kv, p.meta.id))!),
      factsAsRows(written.get(p.meta.id)!),
    );
  }
  assert.deepEqual(await rollups(), qs.map((o) => naiveAggregate(all, scope, o)));
  deps.kv.close();
});

Deno.test("rollup backfill: a version-6 rollup (no wide rows) is made again with them, with the same answers", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const all = Array.from({ length: 400 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 1_800_000 + i * 7_000,
      anonymous_id: `v${i % 23}`,
      session_id: `s${i % 41}`,
      sequence_no: i % 6,
      path: `/p${i % 5}`,
      event_type: i % 6 === 0 ? "sign_up" : "$pageview",
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  for (const p of parts) {
    // as version 6 left it: the same sections without the wide ones (section numbers 300 and up)
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    const secs = Object.fromEntries(Object.entries(entry.secs).filter(([sec]) => Number(sec) < 300));
    for await (const e of deps.kv.list({ prefix: keys.rollupChunks(p.meta.id) })) {
      if ((e.key[2] as number) >= 300 * 10_000) await deps.kv.delete(e.key);
    }
    await deps.kv.set(keys.rollup(p.meta.id), { ...entry, v: 6, secs });
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
  }
  const qs: AggregateOptions[] = [
    q,
    { metrics: ["pageviews", "viewers", "visitors"], breakdown: ["page"] },
    { metrics: ["visitors"], breakdown: ["country"] },
  ];
  const rollups = () => new RollupSource(deps, new Source(deps)).answer(scope, qs);
  assert.deepEqual(await rollups(), qs.map(() => null), "a version-6 rollup: the scan answers");
  assert.deepEqual(await backfillRollups(deps, "org1", "production"), { parts: parts.length, remaining: 0 });
  for (const p of parts) {
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    assert.equal(entry.v, ROLLUP_VERSION);
    assert.ok(entry.secs[wideRowsSec(TOTAL)], "the wide totals are written");
  }
  assert.deepEqual(await rollups(), qs.map((o) => naiveAggregate(all, scope, o)));
  deps.kv.close();
});
