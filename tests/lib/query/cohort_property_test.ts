/**
 * Cohorts against the reference (cohort_reference.ts): random definitions (conditions on events, pages,
 * counts, first touch, windows, and / or / not) over random events; every question asked under the cohort
 * equals the reference question over the members' events, from the raw tail, from parts, with windows that
 * end later (a moving "now", where a kept evaluation may be reused) and with late arrivals; the cohort's size
 * equals the reference's.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, CohortExpr, Scope } from "../../../lib/query/api.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { store } from "./fixtures.ts";
import { naiveAggregate, naiveFunnel, naivePaths, naiveRetention, naiveSessions } from "./reference.ts";
import { cohortEvents, naiveCohort } from "./cohort_reference.ts";
import { BASE, DAY, eventArb, exprArb, later, NOW, toEvents } from "./cohort_fixture.ts";

const questionArb = fc.record({
  touchpoint: fc.constantFrom(undefined, "tp1"),
  fromDay: fc.integer({ min: 0, max: 5 }),
  days: fc.integer({ min: 1, max: 8 }),
  bots: fc.boolean(),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

const AGG: AggregateOptions[] = [
  { metrics: ["visitors", "sessions", "pageviews", "bounce_rate", "session_duration_s", "engaged_visitors"] },
  {
    metrics: ["pageviews", "viewers", "engagement_time_s", "exit_rate", "entries", "exits"],
    breakdown: ["page"],
  },
  { metrics: ["visitors", "conversion_rate"], breakdown: ["channel"], goal: { event_type: "purchase" } },
  { metrics: ["visitors", "events"], bucket: "day", breakdown: ["country"] },
];

async function compare(
  deps: Awaited<ReturnType<typeof testDeps>>,
  all: StoredEvent[],
  cohort: CohortExpr,
  q: Question,
) {
  const engine = createEngine(deps);
  const plain: Scope = {
    org: "org1",
    env: "production",
    touchpoint: q.touchpoint,
    from: BASE + q.fromDay * DAY,
    to: BASE + (q.fromDay + q.days) * DAY,
    timezone: "UTC",
    traffic: q.bots ? ["human", "bot"] : undefined,
  };
  const scope: Scope = { ...plain, cohort };
  const members = naiveCohort(all, q.touchpoint, cohort);
  const mine = cohortEvents(all, members);
  assert.deepEqual(await engine.aggregateMany(scope, AGG), AGG.map((o) => naiveAggregate(mine, plain, o)));
  const funnel = {
    steps: [{ event_type: "$pageview" }, { event_type: "sign_up" }, { event_type: "purchase" }],
    window_ms: 2 * DAY,
  };
  assert.deepEqual(await engine.funnel(scope, funnel), naiveFunnel(mine, plain, funnel));
  const paths = { anchor: { event_type: "$pageview" }, direction: "after" as const, depth: 2 };
  assert.deepEqual(await engine.paths(scope, paths), naivePaths(mine, plain, paths));
  assert.deepEqual(
    await engine.retention(scope, { period: "day" }),
    naiveRetention(mine, plain, { period: "day" }),
  );
  assert.deepEqual(await engine.sessions(scope, { limit: 4 }), naiveSessions(mine, plain, { limit: 4 }));
  const active = new Set(
    all.filter((e) =>
      e.traffic === "human" && e.received_at >= plain.from && e.received_at < plain.to &&
      (!q.touchpoint || e.touchpoint === q.touchpoint)
    ).map((e) => e.anonymous_id),
  );
  assert.equal(await engine.cohortSize(plain, cohort), [...members].filter((m) => active.has(m)).length);
}

Deno.test("cohort property: questions under a random cohort equal the reference over its members' events", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 60 }),
      fc.array(eventArb, { maxLength: 12 }),
      exprArb,
      questionArb,
      fc.constantFrom(1, 60_000, 3_600_000, 6 * 3_600_000, DAY),
      async (first, late, cohort, q, shift) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const a = toEvents(first);
          await store(deps.kv, { events: a });
          await compare(deps, a, cohort, q); // raw tail only
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(deps, a, cohort, q); // parts only
          // a later "now": windows reach further (past the data, or over more of it); the kept evaluation
          // may be reused only where the parts hold no row in between
          await compare(deps, a, later(cohort, shift), q);
          const b = toEvents(late, 1);
          await store(deps.kv, { events: b });
          await compare(deps, [...a, ...b], cohort, q); // parts + late raw rows (the cohort is evaluated anew)
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(deps, [...a, ...b], cohort, q);
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});
