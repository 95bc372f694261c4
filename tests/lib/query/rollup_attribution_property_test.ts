/**
 * Sessions, visitors and conversions by attribution fields (channel, source, the pair, UTM campaign, referrer
 * host) and by entry page, answered from the session facts' attributions (lib/query/rollup/attribution.ts),
 * against the reference (reference.ts): the questions behavior_sources and the crawl-coverage referral section
 * ask. Random events whose sessions cross hours and midnight UTC (so parts), change source mid-session (a
 * fact row of several attributions), late arrivals (raw tail, then later parts and merges), a raw tail, bots,
 * touchpoints, periods cut at local midnights in zones with a DST change (and a +05:45 one: the scan), and a
 * goal. Rollup answers, when given, equal the reference; the engine's answers always do.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, EventField, Filter, Metric, Scope } from "../../../lib/query/api.ts";
import type { RollupSource } from "../../../lib/query/rollup/source.ts";
import {
  aggregateChecker,
  DAY,
  dayEvents,
  DST_BASE as BASE,
  DST_NOW as NOW,
  expected,
  localMidnight,
  newVisitors,
  originFields,
  ORIGINS,
  randomLives,
  type Site,
  zoneArb,
} from "./rollup_site.ts";

const eventArb = fc.record({
  minute: fc.integer({ min: 0, max: 9 * 24 * 60 }),
  visitor: fc.integer({ min: 0, max: 6 }),
  session: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up"),
  seq: fc.integer({ min: 0, max: 12 }),
  // mostly one origin per visitor's session; sometimes another (a session of several attributions)
  origin: fc.constantFrom(-1, -1, -1, 0, 1, 2, 3, 4, 5),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
  page: fc.constantFrom("/", "/a", "/b"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const toEvents = (raw: Ev[], shift = 0) =>
  dayEvents(raw, shift, (r) => ({
    path: r.page,
    ...originFields(ORIGINS[r.origin < 0 ? (r.visitor + r.session) % ORIGINS.length : r.origin]),
  }));

/** The questions of behavior_sources and of the referral section, and a few more of the same kind. */
const SHAPES: { breakdown: EventField[]; filters: Filter[] }[] = [
  { breakdown: ["channel"], filters: [] },
  { breakdown: ["channel", "source"], filters: [] },
  { breakdown: ["utm_campaign"], filters: [] },
  { breakdown: ["referrer_host"], filters: [] },
  { breakdown: ["source"], filters: [] },
  { breakdown: ["source"], filters: [{ field: "channel", op: "eq", value: "AI Assistant" }] },
  {
    breakdown: ["source", "entry_page"],
    filters: [
      { field: "channel", op: "eq", value: "AI Assistant" },
      { field: "event_type", op: "eq", value: "$pageview" },
    ],
  },
  { breakdown: ["entry_page"], filters: [{ field: "source", op: "neq", value: "(direct)" }] },
  { breakdown: [], filters: [{ field: "channel", op: "in", value: ["Email", "Paid Search"] }] },
];

const questionArb = fc.record({
  shape: fc.integer({ min: 0, max: SHAPES.length - 1 }),
  metrics: fc.constantFrom<Metric[]>(
    ["visitors", "sessions"],
    ["visitors"],
    ["visitors", "sessions", "conversions", "conversion_rate"],
    ["sessions", "visitors"],
  ),
  goal: fc.constantFrom(undefined, "sign_up", "$autocapture"),
  traffic: fc.constantFrom(undefined, undefined, ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: zoneArb(),
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 10 }),
  limit: fc.constantFrom(undefined, 2),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: AggregateOptions } {
  const from = localMidnight(BASE, q.fromDay, q.tz);
  const shape = SHAPES[q.shape];
  const converts = q.metrics.includes("conversions");
  return {
    scope: {
      org: "org1",
      env: "production",
      from,
      to: Math.min(NOW, from + q.days * DAY),
      timezone: q.tz,
      // a goal is asked over people only (as the tools ask it)
      traffic: converts ? undefined : q.traffic,
      touchpoint: q.touchpoint,
      filters: shape.filters,
    },
    opts: {
      metrics: q.metrics,
      breakdown: shape.breakdown,
      ...(converts ? { goal: { event_type: q.goal ?? "sign_up" } } : {}),
      ...(q.limit ? { limit: q.limit } : {}),
    },
  };
}

let served = 0, asked = 0, converted = 0, entries = 0;
async function check(site: Site, qs: Question[], rollups: RollupSource) {
  const checked = aggregateChecker(site);
  // asked together, as the tools ask them (each question alone too: the engine's path)
  const asks = qs.map(ask);
  for (const { scope, opts } of asks) {
    asked++;
    if (!await checked(scope, opts, rollups, { again: true })) continue;
    served++;
    if (opts.goal) converted++;
    if (opts.breakdown?.includes("entry_page")) entries++;
  }
  // one scope, several questions at once (a plain one beside): behavior_sources' batch
  const { scope } = asks[0];
  const batch = [...asks.map((a) => a.opts), {
    metrics: ["visitors", "pageviews"] as Metric[],
    breakdown: ["page"] as EventField[],
  }];
  const together = await checked.small.aggregateMany(scope, batch);
  batch.forEach((o, i) => assert.deepEqual(together[i], expected(site, scope, o)));
}

Deno.test("rollup attributions: sessions, visitors and conversions by source, channel, campaign, referrer and entry page equal the reference", async () => {
  // one source for the whole run: what it keeps is checked across new parts and a new raw tail (answers kept
  // for the parts alone must not be given with a new raw tail, nor those for an earlier tail)
  await randomLives(
    eventArb,
    questionArb,
    { first: 80, runs: 40, toEvents, more: newVisitors },
    (site, run) => check(site, run.qs, run.kept()),
  );
  console.log(
    `${served} of ${asked} answered from rollups (${converted} with a goal, ${entries} by entry page)`,
  );
  assert.ok(served > asked / 3, `${served} of ${asked} answered from rollups`);
  assert.ok(converted > 0, "conversions answered from rollups");
  assert.ok(entries > 0, "entry pages answered from rollups");
});
