/**
 * Web Vitals tables over a part's life: compaction writes one with each event part (merged parts too) and
 * deletes it with the part; parts from before tables get theirs from the backfill a few at a time
 * (resumable), their rows read exactly meanwhile, with the same answers; a compaction run of events calls it.
 * The values are bucket middles (1010, 1030, …), so histogram answers equal the scan's exactly here.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillVitals } from "../../../lib/jobs/vitals_backfill.ts";
import type { Scope, SeriesGroup, ValueSeriesOptions, ValueSeriesResult } from "../../../lib/query/api.ts";
import { createEngine } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { VitalsSource } from "../../../lib/query/vitals/source.ts";
import { deleteVitals, hasVitals } from "../../../lib/query/vitals/store.ts";
import { bucketOf } from "../../../lib/query/vitals/buckets.ts";
import type { VitalsTable } from "../../../lib/query/vitals/build.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { asVitalsV3 } from "../../helpers/older_tables.ts";
import { ev, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
  filters: [{ field: "event_type", op: "eq", value: "$web_vitals" }],
};
const q: ValueSeriesOptions = { by: "page", series: "metric", value: "value" };

const vitalsOver = (days: number, tag: string): StoredEvent[] =>
  Array.from({ length: 240 }, (_, i) =>
    ev({
      id: `${tag}-${i}`,
      received_at: NOW - (1 + (i % days)) * DAY + i * 61_000,
      anonymous_id: `v${i % 17}`,
      event_type: i % 9 ? "$web_vitals" : "$pageview",
      path: `/p${i % 5}`,
      properties: { metric: i % 3 ? "LCP" : "INP", value: 1010 + 20 * (i % 40) },
    }));

type Deps = Awaited<ReturnType<typeof testDeps>>;

const tableParts = async (deps: Deps) => {
  const out: boolean[] = [];
  for (const p of await listParts(deps.kv, "org1", "production", "ev")) {
    out.push(await hasVitals(deps.kv, p.meta.id));
  }
  return out;
};

/** The groups with their counts read (lazy in histogram answers), in value order. */
const plain = (r: ValueSeriesResult) => {
  const g = (x: SeriesGroup) => ({
    ...x,
    series: Object.fromEntries(
      Object.entries(x.series).map((
        [k, s],
      ) => [k, { rows: s.rows, reporters: s.reporters, counts: s.counts }]),
    ),
  });
  return {
    total: g(r.total),
    groups: r.groups.map(g).sort((a, b) => String(a.value).localeCompare(String(b.value))),
  };
};

/** The tables' answer (null: the scan must answer) next to the scan's. */
async function ask(deps: Deps) {
  const want = await createEngine(deps).valueSeries(scope, q);
  const got = await new VitalsSource(deps, new Source(deps), 1 << 24).answer(scope, q);
  assert.ok(got, "answered from the tables");
  assert.deepEqual(plain(got), plain(want));
  return got;
}

Deno.test("vitals tables: compaction writes them, merges give merged parts theirs, and deleted parts take them along", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  await store(deps.kv, { events: vitalsOver(4, "a") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const before = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(before.length >= 4);
  assert.deepEqual(await tableParts(deps), before.map(() => true));
  // late arrivals in the same days: new parts, then merges of each closed day's two parts
  await store(deps.kv, { events: vitalsOver(4, "b") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const after = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(after.some((p) => !before.some((b) => b.meta.id === p.meta.id)), "merged parts");
  assert.deepEqual(await tableParts(deps), after.map(() => true));
  // the merged-away parts' tables went with their chunks
  for (const b of before) {
    if (after.some((p) => p.meta.id === b.meta.id)) continue;
    assert.equal((await deps.kv.get(keys.vitals(b.meta.id))).value, null);
    assert.equal((await Array.fromAsync(deps.kv.list({ prefix: keys.vitalsChunks(b.meta.id) }))).length, 0);
  }
  const got = await ask(deps);
  assert.equal(got.relative_error, 0.01, "from histograms");
  assert.equal(got.total.rows, 2 * 240 - 2 * Math.ceil(240 / 9));
  deps.kv.close();
});

Deno.test("vitals backfill: parts without a table are read exactly until the backfill, resumable, has reached them", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  await store(deps.kv, { events: vitalsOver(6, "a") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(parts.length >= 6);
  // as a deployment from before tables left them
  for (const p of parts) await deleteVitals(deps.kv, p.meta.id);
  assert.equal((await ask(deps)).relative_error, 0, "every part read exactly");

  const first = await backfillVitals(deps, "org1", "production", { maxParts: 2 });
  assert.deepEqual({ ...first, stored: 0 }, { parts: 2, remaining: parts.length - 2, stored: 0 });
  assert.ok(first.stored > 0);
  assert.deepEqual(await tableParts(deps), parts.map((_, i) => i < 2));
  assert.equal((await ask(deps)).relative_error, 0.01, "two parts from histograms, the rest read");
  // a compaction run of events continues the backfill
  const report = await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  assert.equal(report.vitals, parts.length - 2);
  assert.deepEqual(await tableParts(deps), parts.map(() => true));
  await ask(deps);
  assert.deepEqual(await backfillVitals(deps, "org1", "production"), { parts: 0, remaining: 0, stored: 0 });
  deps.kv.close();
});

Deno.test("vitals backfill: tables of version 3 (before reporters) still answer, reporters none and values out of range left out, until rebuilt with reporters", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  await store(deps.kv, { events: vitalsOver(4, "a") });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  // as the release before version 4 left them: tables of version 3, some (built before 7d487f5) counting an
  // LCP out of its range (1e300)
  for (const p of parts) await asVitalsV3(deps.kv, p.meta.id, withOutOfRange);
  assert.deepEqual(await tableParts(deps), parts.map(() => false), "the backfill's to do");
  // answered from them (not read exactly: within 1%), equal to the scan but for the reporters, which read none
  // (a lower bound: each metric's figures withheld until the backfill), and without the value out of range
  const source = new VitalsSource(deps, new Source(deps), 1 << 24);
  const want = await createEngine(deps).valueSeries(scope, q);
  const before = await source.answer(scope, q);
  assert.ok(before, "answered from the tables");
  assert.equal(before.relative_error, 0.01, "from histograms");
  // (series in name order: which metric a source meets first follows the parts' random ids)
  const noReporters = (r: ValueSeriesResult) =>
    JSON.stringify(
      plain(r),
      (k, v) =>
        k === "reporters"
          ? 0
          : k === "series"
          ? Object.fromEntries(Object.entries(v as object).sort(([a], [b]) => (a < b ? -1 : 1)))
          : v,
    );
  assert.equal(noReporters(before), noReporters(want));
  for (const g of [before.total, ...before.groups]) {
    assert.deepEqual(Object.values(g.series).map((s) => s.reporters), [0, 0]);
  }
  const done = await backfillVitals(deps, "org1", "production");
  assert.equal(done.parts, parts.length);
  assert.deepEqual(await tableParts(deps), parts.map(() => true));
  // the same source (its kept merge and tables were of version 3) gives the new answer
  const got = await source.answer(scope, q);
  assert.ok(got);
  assert.equal(got.relative_error, 0.01, "from histograms");
  assert.deepEqual(plain(got), plain(want));
  // 17 visitors over 5 pages: every page's LCP and INP come from 5 or more of them
  for (const g of got.groups) assert.deepEqual(Object.values(g.series).map((s) => s.reporters), [5, 5]);
  deps.kv.close();
});

/** A table whose first LCP series also counts an LCP of 1e300 (as builds before 7d487f5 did). */
function withOutOfRange(t: VitalsTable): VitalsTable {
  const k = t.sMetric.indexOf(t.metrics.indexOf("LCP"));
  if (k < 0) return t;
  const e = t.at[k + 1];
  return {
    ...t,
    key: Int32Array.from([...t.key.slice(0, e), bucketOf(1e300), ...t.key.slice(e)]),
    count: Uint32Array.from([...t.count.slice(0, e), 1, ...t.count.slice(e)]),
    at: t.at.map((x, i) => (i > k ? x + 1 : x)),
  };
}
