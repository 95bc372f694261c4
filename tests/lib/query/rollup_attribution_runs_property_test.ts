/**
 * Sources from the parts' runs (rollup version 10: lib/query/rollup/attribution_runs.ts, attribution_period.ts)
 * against the reference: sessions that run for hours and cross midnight UTC (so two parts), several sessions
 * of one visitor, a source changing mid-session, bots and a second touchpoint (sessions left out of runs),
 * late arrivals (a raw tail holding sessions the parts hold, then later parts and merges), periods from local
 * midnights in zones with a DST change and periods cut at any minute (spans the period cuts, hours read from
 * the parts' rows), filters and a goal. Every question here must be answered from runs.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, EventField, Filter, Metric, Scope } from "../../../lib/query/api.ts";
import type { RollupSource } from "../../../lib/query/rollup/source.ts";
import { runsAnswered } from "../../../lib/query/rollup/attribution_period.ts";
import { attributionAsked } from "../../../lib/query/rollup/answer.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import {
  DAY,
  DST_NOW as NOW,
  expected,
  live,
  localMidnight,
  MINUTE,
  originFields,
  ORIGINS as ALL_ORIGINS,
  type Site,
  visitEvent,
  zoneArb,
} from "./rollup_site.ts";

const BASE = NOW - 6 * DAY;

// the first five (no email): a session takes its origin by its visitor and number among these
const ORIGINS = ALL_ORIGINS.slice(0, 5);

/** A session: its visitor, start, events a few minutes to an hour apart (so across hours and midnight). */
const sessionArb = fc.record({
  visitor: fc.integer({ min: 0, max: 11 }),
  session: fc.integer({ min: 0, max: 3 }),
  start: fc.integer({ min: 0, max: 5 * 24 * 60 }),
  steps: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 70 }),
      type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "sign_up"),
      page: fc.constantFrom("/", "/a", "/b"),
      // mostly the session's origin; sometimes another (a fact row of several attributions)
      origin: fc.constantFrom(-1, -1, -1, -1, 1, 3),
      late: fc.constantFrom(0, 0, 0, 0, 0, 1),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp1", "tp2"),
});
type Session = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
/** The sessions' events: those on time, and the late ones (stored after the first compaction). */
function toEvents(sessions: Session[]): { onTime: StoredEvent[]; late: StoredEvent[] } {
  const onTime: StoredEvent[] = [], late: StoredEvent[] = [];
  for (const s of sessions) {
    let at = BASE + s.start * MINUTE + (serial % 59) * 1000;
    const origin = (s.visitor + s.session) % ORIGINS.length;
    s.steps.forEach((step, k) => {
      at += step.gap * MINUTE;
      const o = ORIGINS[step.origin < 0 ? origin : step.origin];
      const e = visitEvent(
        `e${serial++}`,
        Math.min(at, NOW - 1),
        at,
        { ...s, seq: k, type: step.type },
        { path: step.page, ...originFields(o) },
      );
      (step.late ? late : onTime).push(e);
    });
  }
  return { onTime, late };
}

const SHAPES: { breakdown: EventField[]; filters: Filter[] }[] = [
  { breakdown: ["channel"], filters: [] },
  { breakdown: ["channel", "source"], filters: [] },
  { breakdown: ["utm_campaign"], filters: [] },
  { breakdown: ["referrer_host"], filters: [] },
  { breakdown: ["source"], filters: [{ field: "channel", op: "eq", value: "AI Assistant" }] },
  {
    breakdown: ["source", "entry_page"],
    filters: [
      { field: "channel", op: "eq", value: "AI Assistant" },
      { field: "event_type", op: "eq", value: "$pageview" },
    ],
  },
  { breakdown: ["entry_page"], filters: [] },
  { breakdown: [], filters: [{ field: "channel", op: "in", value: ["Direct", "Paid Search"] }] },
];

const questionArb = fc.record({
  shape: fc.integer({ min: 0, max: SHAPES.length - 1 }),
  metrics: fc.constantFrom<Metric[]>(
    ["visitors", "sessions"],
    ["sessions"],
    ["visitors", "sessions", "conversions", "conversion_rate"],
  ),
  traffic: fc.constantFrom(undefined, undefined, ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: zoneArb(false),
  fromDay: fc.integer({ min: 0, max: 4 }),
  days: fc.integer({ min: 1, max: 7 }),
  // minutes past a local midnight the period starts and ends (a cut hour), or none
  cut: fc.constantFrom(0, 0, 17, 75, 600),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: AggregateOptions } {
  const from = localMidnight(BASE, q.fromDay, q.tz) + q.cut * MINUTE;
  const shape = SHAPES[q.shape];
  const converts = q.metrics.includes("conversions");
  return {
    scope: {
      org: "org1",
      env: "production",
      from,
      to: Math.min(NOW, from + q.days * DAY - q.cut * 2 * MINUTE),
      timezone: q.tz,
      traffic: converts ? undefined : q.traffic,
      touchpoint: q.touchpoint,
      filters: shape.filters,
    },
    opts: {
      metrics: q.metrics,
      breakdown: shape.breakdown,
      ...(converts ? { goal: { event_type: "sign_up" } } : {}),
    },
  };
}

let served = 0, asked = 0;
async function check(site: Site, qs: Question[], kept: RollupSource) {
  const asks = qs.map(ask);
  // a new source each time (nothing kept: the runs are read and counted), and one kept across the run
  // (a source per question: two periods over the same parts' hours with nothing in their cut hours share an
  // answer a source keeps, rightly, and that one is not counted again)
  for (const { scope, opts } of asks) {
    const want = expected(site, scope, opts);
    const before = runsAnswered.count;
    const [got] = await site.rollups().answer(scope, [opts]);
    asked++;
    if (!got) continue;
    assert.deepEqual(got, want, JSON.stringify({ scope, opts }));
    assert.deepEqual((await kept.answer(scope, [opts]))[0], want);
    // (a question plain rollups answer, without sessions by attribution, is not this test's)
    if (!attributionAsked(scope, opts)) continue;
    served++;
    assert.ok(runsAnswered.count > before, "answered from runs");
  }
  // the questions together over the first scope: behavior_sources' batch
  const { scope } = asks[0];
  const got = await site.rollups().answer(scope, asks.map((a) => a.opts));
  got.forEach((g, i) => g && assert.deepEqual(g, expected(site, scope, asks[i].opts)));
}

Deno.test("rollup attribution runs: sources from runs and joined rows equal the reference", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(sessionArb, { minLength: 1, maxLength: 50 }),
      fc.array(sessionArb, { maxLength: 4 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (sessions, recent, qs) => {
        let rollups: RollupSource | undefined;
        const { onTime, late } = toEvents(sessions);
        await live(
          NOW,
          {
            first: onTime,
            // late events of compacted sessions: a raw tail holding sessions the parts hold; then folded into
            // later parts (and merged): sessions in two parts
            late,
            // a raw tail of the last hours: new sessions, and more of the parts' own
            tail: () => [
              ...toEvents(recent.map((s) => ({ ...s, start: 5 * 24 * 60 + 10 }))).onTime,
              ...toEvents(sessions.slice(0, 2).map((s) => ({ ...s, start: 5 * 24 * 60 + 20 }))).onTime,
            ],
          },
          (site) => check(site, qs, rollups ??= site.rollups()),
        );
      },
    ),
    { numRuns: 30, endOnFailure: true },
  );
  console.log(`${served} of ${asked} answered from runs`);
  assert.ok(served > asked / 3, `${served} of ${asked} answered from runs`);
});
