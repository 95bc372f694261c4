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
import { ev, store } from "./fixtures.ts";
import { naiveAggregate, naiveFunnel, naivePaths, naiveRetention, naiveSessions } from "./reference.ts";
import { cohortEvents, naiveCohort } from "./cohort_reference.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-03T12:00:00Z");
const BASE = NOW - 8 * DAY;

const eventArb = fc.record({
  slot: fc.integer({ min: 0, max: 7 * 24 * 60 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4", "v5", "v6", "v7"),
  session: fc.constantFrom("s1", "s2"),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up", "purchase"),
  page: fc.constantFrom("/", "/pricing", "/docs/a", "/docs/b"),
  country: fc.constantFrom("DE", "GB", null),
  device: fc.constantFrom("desktop", "mobile"),
  source: fc.constantFrom("(direct)", "Google", "chatgpt.com"),
  channel: fc.constantFrom("Direct", "Organic Search", "AI Assistant"),
  campaign: fc.constantFrom(null, "spring", "autumn"),
  traffic: fc.constantFrom("human", "human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
  plan: fc.constantFrom("pro", "team"),
});
type Raw = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function toEvents(raw: Raw[], shift = 0): StoredEvent[] {
  return raw.map((r, i) => {
    const t = BASE + r.slot * 60_000 + 2 * i + shift;
    return ev({
      received_at: t,
      device_time: new Date(t).toISOString(),
      anonymous_id: r.visitor,
      session_id: `${r.visitor}-${r.session}`,
      event_type: r.type,
      path: r.page,
      screen: r.page,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      device_type: r.device as "desktop",
      source: r.source,
      channel: r.channel,
      utm: r.campaign
        ? { source: "news", medium: "email", campaign: r.campaign, term: null, content: null }
        : null,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      properties: r.type === "purchase" ? { plan: r.plan } : {},
    });
  });
}

// windows end at a day's end or inside it (as a window ending "now" does)
const windowArb = fc.record({
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 8 }),
  short: fc.constantFrom(0, 0, 3, 11, 20).map((h) => h * 3_600_000),
}).map(({ fromDay, days, short }) => ({
  from: BASE + fromDay * DAY,
  to: BASE + (fromDay + days) * DAY - short,
}));

const conditionArb: fc.Arbitrary<Filter[]> = fc.constantFrom<Filter[]>(
  [],
  [{ field: "event_type", op: "eq", value: "sign_up" }],
  [{ field: "event_type", op: "eq", value: "purchase" }, { field: "prop:plan", op: "eq", value: "pro" }],
  [{ field: "event_type", op: "eq", value: "$pageview" }, { field: "page", op: "prefix", value: "/docs/" }],
  [{ field: "event_type", op: "eq", value: "$pageview" }, { field: "page", op: "eq", value: "/pricing" }],
  [{ field: "country", op: "in", value: ["DE", "GB"] }],
  [{ field: "country", op: "eq", value: "DE" }],
  [{ field: "device_type", op: "eq", value: "mobile" }],
);
const firstArb: fc.Arbitrary<Filter> = fc.constantFrom<Filter>(
  { field: "source", op: "eq", value: "Google" },
  { field: "channel", op: "in", value: ["AI Assistant", "Direct"] },
  { field: "utm_campaign", op: "eq", value: "spring" },
  { field: "utm_campaign", op: "neq", value: "spring" },
);
const leafArb: fc.Arbitrary<CohortExpr> = fc.oneof(
  fc.record({ filters: conditionArb, min: fc.integer({ min: 1, max: 4 }), w: windowArb })
    .map(({ filters, min, w }) => ({ did: { filters, min, ...w } })),
  fc.record({ filter: firstArb, w: windowArb }).map(({ filter, w }) => ({ first: { filter, ...w } })),
);
const exprArb: fc.Arbitrary<CohortExpr> = fc.letrec<{ expr: CohortExpr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb,
    leafArb,
    fc.array(tie("expr"), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
    fc.array(tie("expr"), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
    tie("expr").map((not) => ({ not })),
  ),
})).expr;

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

/** The definition with every window ending `ms` later, as when a question's "now" moves on. */
function later(x: CohortExpr, ms: number): CohortExpr {
  if ("all" in x) return { all: x.all.map((y) => later(y, ms)) };
  if ("any" in x) return { any: x.any.map((y) => later(y, ms)) };
  if ("not" in x) return { not: later(x.not, ms) };
  if ("did" in x) return { did: { ...x.did, to: x.did.to + ms } };
  return { first: { ...x.first, to: x.first.to + ms } };
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
