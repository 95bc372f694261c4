/**
 * Retention from the rollups' hourly visitor sets against the reference (reference.ts naiveRetention): random
 * visitors active over three weeks, compacted into parts, late arrivals in the raw tail and then in later
 * parts, a raw tail of the last hours, periods of days, weeks and months cut at local midnights in zones with
 * a DST change (and +05:45: the scan), traffic kinds and touchpoints. Rollup answers, when given, equal the
 * reference; the engine's answers (rollups or scan) always do.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine, startOfLocalDay } from "../../../lib/query/api.ts";
import type { RetentionOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveRetention } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const BASE = NOW - 21 * DAY;

const eventArb = fc.record({
  minute: fc.integer({ min: 0, max: 21 * 24 * 60 - 1 }),
  visitor: fc.integer({ min: 0, max: 9 }),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
function toEvents(raw: Ev[]): StoredEvent[] {
  return raw.map((r) =>
    ev({
      id: `r${serial++}`,
      received_at: BASE + r.minute * 60_000 + (serial % 997),
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}-${Math.floor(r.minute / 30)}`,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
    })
  );
}

const questionArb = fc.record({
  period: fc.constantFrom("day", "week", "month") as fc.Arbitrary<RetentionOptions["period"]>,
  periods: fc.constantFrom(undefined, 2),
  tz: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 10 }),
  days: fc.integer({ min: 1, max: 21 }),
  traffic: fc.constantFrom(undefined, ["human"], ["bot"], ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: RetentionOptions } {
  const d = new Date(BASE + q.fromDay * DAY);
  const from = startOfLocalDay({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() }, q.tz);
  return {
    scope: {
      org: "org1",
      env: "production",
      from,
      to: Math.min(NOW, from + q.days * DAY),
      timezone: q.tz,
      traffic: q.traffic,
      touchpoint: q.touchpoint,
    },
    opts: { period: q.period, periods: q.periods },
  };
}

let served = 0, asked = 0;
async function check(deps: Awaited<ReturnType<typeof testDeps>>, all: StoredEvent[], qs: Question[]) {
  const rollups = new RollupSource(deps, new Source(deps));
  // a part cache too small for the period's parts: the engine answers from rollups where it can
  const small = createEngine({ ...deps, config: { ...deps.config, partCacheBytes: 4096 } });
  for (const q of qs) {
    const { scope, opts } = ask(q);
    const expected = naiveRetention(all, scope, opts);
    const fromRollups = await rollups.retention(scope, opts);
    asked++;
    if (fromRollups) {
      served++;
      assert.deepEqual(fromRollups, expected, JSON.stringify({ scope, opts }));
    }
    assert.deepEqual(await small.retention(scope, opts), expected);
  }
}

Deno.test("rollup retention: cohorts and returns equal the reference over parts, late arrivals and a raw tail", async () => {
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
        const b = toEvents(late);
        await store(deps.kv, { events: b });
        await check(deps, [...a, ...b], qs);
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        const c = toEvents(recent).map((e) => ({ ...e, received_at: NOW - 1 - (e.received_at % 7_200_000) }));
        await store(deps.kv, { events: c });
        await check(deps, [...a, ...b, ...c], qs);
        deps.kv.close();
      },
    ),
    { numRuns: 30 },
  );
  console.log(`${served} of ${asked} answered from rollups`);
  assert.ok(served > asked / 3, `${served} of ${asked} answered from rollups`);
});
