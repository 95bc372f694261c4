/**
 * Web Vitals answers from the parts' histograms (lib/query/vitals/) against the scan over random events:
 * compacted parts with their tables, late arrivals in compacted hours (raw tail, then later parts and
 * merges), a part whose table is missing (written before tables: its rows read exactly), a raw tail, periods
 * from local midnights in zones with a DST change in the window (and Kathmandu's +05:45: the scan answers),
 * filters on page and device (and on another field: the scan), breakdowns, traffic kinds and touchpoints.
 * Rows, visitors, series and their reporters (counted up to 5) are equal; every number, in rank order, is within 1% of the scan's (so is any
 * percentile), and the counts at the published thresholds are equal.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine, startOfLocalDay } from "../../../lib/query/api.ts";
import type {
  Filter,
  NumberRuns,
  Scope,
  SeriesGroup,
  ValueSeriesOptions,
  ValueSeriesResult,
} from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { VitalsSource } from "../../../lib/query/vitals/source.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

// the days before NOW hold both autumn clock changes: Europe on 25 October, the US on 1 November
const NOW = Date.parse("2026-11-03T12:00:00Z");
const DAY = 86_400_000;
const BASE = NOW - 10 * DAY;
const THRESHOLDS = [0.1, 0.25, 200, 500, 2500, 4000];

const valueArb = fc.oneof(
  fc.integer({ min: 20, max: 9000 }),
  fc.integer({ min: 0, max: 600 }).map((x) => x / 1000),
  fc.constantFrom(0, 0.1, 0.25, 200, 500, 2500, 4000, 1000, 0.001, 123.456, -5),
  fc.constant("slow"), // not a number: its row counts, its value does not
);
/** minutes from BASE where a busy hour begins (27 Oct 12:00Z): periods cut inside it find rows on both sides */
const BUSY = 3 * 24 * 60 + 12 * 60;
const eventArb = fc.record({
  minute: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 9 * 24 * 60 }), weight: 3 },
    { arbitrary: fc.integer({ min: BUSY, max: BUSY + 59 }), weight: 1 },
  ),
  visitor: fc.integer({ min: 0, max: 12 }),
  vitals: fc.boolean(),
  metric: fc.constantFrom("LCP", "LCP", "INP", "CLS", null),
  value: valueArb,
  page: fc.constantFrom("/", "/pricing", "/blog/a", "/signup"),
  device: fc.constantFrom("desktop", "mobile", "tablet"),
  country: fc.constantFrom("DE", "GB"),
  traffic: fc.constantFrom("human", "human", "human", "bot", "ai_agent"),
  tp: fc.constantFrom("tp1", "tp2"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
function toEvents(raw: Ev[], shift = 0): StoredEvent[] {
  return raw.map((r) =>
    ev({
      id: `e${serial++}`,
      received_at: BASE + r.minute * 60_000 + shift + (serial % 997),
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}`,
      event_type: r.vitals ? "$web_vitals" : "$pageview",
      path: r.page,
      screen: r.page,
      device_type: r.device as StoredEvent["device_type"],
      geo: { country: r.country, city: null, asn: null, as_org: null },
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      properties: r.vitals
        ? (r.metric === null ? { value: r.value } : { metric: r.metric, value: r.value })
        : {},
    })
  );
}

const filterArb: fc.Arbitrary<Filter> = fc.record({
  field: fc.constantFrom("page", "page", "device_type", "country") as fc.Arbitrary<Filter["field"]>,
  op: fc.constantFrom("eq", "neq", "contains", "in", "prefix") as fc.Arbitrary<Filter["op"]>,
  value: fc.constantFrom<string | string[]>("/", "/pricing", "mobile", ["/", "/signup"], "o", "DE"),
});
const questionArb = fc.record({
  by: fc.constantFrom(undefined, "page", "device_type") as fc.Arbitrary<ValueSeriesOptions["by"]>,
  filters: fc.array(filterArb, { maxLength: 2 }),
  traffic: fc.constantFrom(undefined, ["human"], ["bot", "ai_agent"], ["human", "bot"]) as fc.Arbitrary<
    Scope["traffic"]
  >,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 10 }),
  // a period ending inside the busy hour (the tables answer only when its rows lie on one side)
  cut: fc.option(fc.integer({ min: 1, max: 59 })),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

const OPTS = (q: Question): ValueSeriesOptions => ({ by: q.by, series: "metric", value: "value" });

function scopeOf(q: Question): Scope {
  const d = new Date(BASE + (q.cut === null ? q.fromDay : q.fromDay % 3) * DAY);
  const from = startOfLocalDay({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() }, q.tz);
  return {
    org: "org1",
    env: "production",
    from,
    to: q.cut === null ? Math.min(NOW, from + q.days * DAY) : BASE + (BUSY + q.cut) * 60_000,
    timezone: q.tz,
    traffic: q.traffic,
    touchpoint: q.touchpoint,
    filters: [{ field: "event_type", op: "eq", value: "$web_vitals" }, ...q.filters],
  };
}

/** Every number of the runs, ascending. */
const expand = (runs: NumberRuns) =>
  [...runs.values].flatMap((v, k) => Array<number>(runs.counts[k]).fill(v));

function sameGroup(got: SeriesGroup, want: SeriesGroup, where: string) {
  assert.equal(got.value, want.value, where);
  assert.equal(got.rows, want.rows, `${where}: rows`);
  assert.equal(got.visitors, want.visitors, `${where}: visitors`);
  assert.deepEqual(Object.keys(got.series).sort(), Object.keys(want.series).sort(), `${where}: series`);
  for (const [name, w] of Object.entries(want.series)) {
    const g = got.series[name];
    assert.equal(g.rows, w.rows, `${where} ${name}: rows`);
    // people whose numbers count, up to 5: exact below 5 over any hours (the tables keep 5 a series)
    assert.equal(typeof w.reporters, "number", `${where} ${name}: reporters`);
    assert.equal(g.reporters, w.reporters, `${where} ${name}: reporters`);
    const a = expand(g.counts), b = expand(w.counts);
    assert.equal(a.length, b.length, `${where} ${name}: numbers`);
    a.forEach((x, i) => {
      assert.ok(Math.abs(x - b[i]) <= 0.01 * Math.abs(b[i]) + 1e-12, `${where} ${name}: ${x} for ${b[i]}`);
    });
    for (const t of THRESHOLDS) {
      assert.equal(
        a.filter((x) => x <= t).length,
        b.filter((x) => x <= t).length,
        `${where} ${name}: ≤ ${t}`,
      );
    }
  }
}

function same(got: ValueSeriesResult, want: ValueSeriesResult, where: string) {
  sameGroup(got.total, want.total, `${where} total`);
  const byValue = new Map(want.groups.map((g) => [g.value, g]));
  assert.equal(got.groups.length, want.groups.length, `${where}: groups`);
  for (const g of got.groups) sameGroup(g, byValue.get(g.value)!, `${where} ${g.value}`);
}

let served = 0, asked = 0, approximate = 0;
async function check(deps: Awaited<ReturnType<typeof testDeps>>, qs: Question[], vitals: VitalsSource) {
  // the scan: the period's parts fit the default budget here
  const engine = createEngine(deps);
  // a part cache too small for the period's parts: the engine answers from the tables where it can
  const small = createEngine({ ...deps, config: { ...deps.config, partCacheBytes: 4096 } });
  for (const q of qs) {
    const scope = scopeOf(q), opts = OPTS(q);
    const where = JSON.stringify(q);
    const want = await engine.valueSeries(scope, opts);
    const got = await vitals.answer(scope, opts);
    asked++;
    if (got) {
      served++;
      if (got.relative_error > 0) approximate++;
      same(got, want, where);
    }
    same(await small.valueSeries(scope, opts), want, `${where} (engine)`);
  }
}

Deno.test("vitals: histogram answers match the scan over parts, late arrivals, merges, a part without a table and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 80 }),
      fc.array(eventArb, { maxLength: 15 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (first, late, recent, qs) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        const a = toEvents(first);
        await store(deps.kv, { events: a });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        // late arrivals: events of already compacted hours, read from the raw tail
        await store(deps.kv, { events: toEvents(late, 1) });
        await check(deps, qs, new VitalsSource(deps, new Source(deps), 1 << 20));
        // folded into later parts of their days (and merged)
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        // a part written before tables: its rows are read exactly
        const parts = await listParts(deps.kv, "org1", "production", "ev");
        if (parts.length) await deps.kv.delete(keys.vitals(parts[0].meta.id));
        // a raw tail of the last hours, not compacted
        const c = toEvents(recent).map((e) => ({ ...e, received_at: NOW - 1 - (e.received_at % 7_200_000) }));
        await store(deps.kv, { events: c });
        const kept = new VitalsSource(deps, new Source(deps), 1 << 20);
        await check(deps, qs, kept);
        // asked again with more of a raw tail: the kept tail table is built again
        const d = toEvents(first.slice(0, 6)).map((e) => ({
          ...e,
          received_at: NOW - 1 - (e.received_at % 3_600_000),
        }));
        await store(deps.kv, { events: d });
        await check(deps, qs, kept);
        deps.kv.close();
      },
    ),
    { numRuns: 40 },
  );
  // most questions qualify (not: Kathmandu's +05:45, a filter on country)
  assert.ok(served > asked / 3, `${served} of ${asked} answered from the tables`);
  console.log(`${served} of ${asked} answered from the tables, ${approximate} from histograms`);
  assert.ok(approximate > asked / 20, `${approximate} answers from histograms`);
});
