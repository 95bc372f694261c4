/**
 * Cohorts over a period whose parts do not fit the scan's budget (cohort/members.ts): the members are
 * evaluated part by part and each part is cut to their rows, never held whole. Every question under a random
 * cohort, with filters in scope or not, equals the reference over the members' events: from parts, with a
 * raw tail of late events beside them, with windows ending later (a kept evaluation reused where the parts
 * hold no row in between), and with budgets that keep nothing, or keep the members and cut parts. (Cutting
 * one member row short in cohort/members.ts fails it within a few runs.)
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, CohortExpr, Filter, Scope } from "../../../lib/query/api.ts";
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
  filters: fc.constantFrom<Filter[]>(
    [],
    [{ field: "country", op: "eq", value: "DE" }],
    [{ field: "page", op: "prefix", value: "/docs/" }, { field: "device_type", op: "neq", value: "mobile" }],
  ),
  // the engine's whole budget (PART_CACHE_MB's bytes): the scan gets two thirds; none of these holds a
  // period of more than a few dozen rows decoded, the larger keep cut parts and members
  budget: fc.constantFrom(3_000, 40_000, 400_000),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

const AGG: AggregateOptions[] = [
  { metrics: ["visitors", "sessions", "pageviews", "bounce_rate", "session_duration_s", "engaged_visitors"] },
  {
    metrics: ["pageviews", "viewers", "engagement_time_s", "exit_rate", "entries", "exits", "dropped_events"],
    breakdown: ["page"],
  },
  { metrics: ["visitors", "conversion_rate"], breakdown: ["channel"], goal: { event_type: "purchase" } },
  { metrics: ["visitors", "events"], bucket: "day", breakdown: ["country"] },
];

async function compare(
  engine: ReturnType<typeof createEngine>,
  all: StoredEvent[],
  cohort: CohortExpr,
  q: Question,
) {
  const plain: Scope = {
    org: "org1",
    env: "production",
    touchpoint: q.touchpoint,
    from: BASE + q.fromDay * DAY,
    to: BASE + (q.fromDay + q.days) * DAY,
    timezone: "UTC",
    traffic: q.bots ? ["human", "bot"] : undefined,
    filters: q.filters,
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
  if (!q.filters.length) {
    assert.deepEqual(
      await engine.retention(scope, { period: "day" }),
      naiveRetention(mine, plain, { period: "day" }),
    );
  }
  assert.deepEqual(await engine.sessions(scope, { limit: 4 }), naiveSessions(mine, plain, { limit: 4 }));
  const active = new Set(
    all.filter((e) =>
      e.traffic === "human" && e.received_at >= plain.from && e.received_at < plain.to &&
      (!q.touchpoint || e.touchpoint === q.touchpoint)
    ).map((e) => e.anonymous_id),
  );
  const bare = { ...plain, filters: [] };
  assert.equal(await engine.cohortSize(bare, cohort), [...members].filter((m) => active.has(m)).length);
}

Deno.test("cohort members property: a period that does not fit is read as its members' rows, answers equal the reference", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 20, maxLength: 60 }),
      fc.array(eventArb, { minLength: 1, maxLength: 12 }),
      exprArb,
      questionArb,
      fc.constantFrom(1, 60_000, 3_600_000, 6 * 3_600_000, DAY),
      async (first, late, cohort, q, shift) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        const engine = createEngine({ ...deps, config: { ...deps.config, partCacheBytes: q.budget } });
        try {
          const a = toEvents(first);
          await store(deps.kv, { events: a });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(engine, a, cohort, q); // parts only
          await compare(engine, a, cohort, q); // again: what was kept, if anything
          // a later "now": the kept evaluation is reused only where the parts hold no row in between
          await compare(engine, a, later(cohort, shift), q);
          const b = toEvents(late, 1);
          await store(deps.kv, { events: b });
          await compare(engine, [...a, ...b], cohort, q); // parts + a raw tail of late rows
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(engine, [...a, ...b], cohort, q);
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 50 },
  );
});
