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
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, EventField, Filter, Metric, Scope } from "../../../lib/query/api.ts";
import { startOfLocalDay } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const DAY = 86_400_000;
const BASE = NOW - 10 * DAY;

/** Attributions an event may carry (source, channel, referrer host, campaign). */
const ORIGINS = [
  { source: "(direct)", channel: "Direct", referrer_host: null, campaign: null },
  { source: "chatgpt", channel: "AI Assistant", referrer_host: "chatgpt.com", campaign: null },
  { source: "perplexity", channel: "AI Assistant", referrer_host: "perplexity.ai", campaign: null },
  { source: "google", channel: "Organic Search", referrer_host: "www.google.com", campaign: null },
  { source: "google", channel: "Paid Search", referrer_host: "www.google.com", campaign: "winter" },
  { source: "news", channel: "Email", referrer_host: null, campaign: "winter" },
] as const;

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

let serial = 0;
function toEvents(raw: Ev[], shift = 0): StoredEvent[] {
  return raw.map((r) => {
    const at = BASE + r.minute * 60_000 + shift + (serial % 997);
    const o = ORIGINS[r.origin < 0 ? (r.visitor + r.session) % ORIGINS.length : r.origin];
    return ev({
      id: `e${serial++}`,
      received_at: at,
      device_time: new Date(at).toISOString(),
      sequence_no: r.seq,
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.session}`,
      event_type: r.type,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      path: r.page,
      source: o.source,
      channel: o.channel,
      referrer_host: o.referrer_host,
      utm: o.campaign
        ? { source: o.source, medium: "cpc", campaign: o.campaign, term: null, content: null }
        : null,
    });
  });
}

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
  tz: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 10 }),
  limit: fc.constantFrom(undefined, 2),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: AggregateOptions } {
  const d = new Date(BASE + q.fromDay * DAY);
  const from = startOfLocalDay({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() }, q.tz);
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
async function check(
  deps: Awaited<ReturnType<typeof testDeps>>,
  all: StoredEvent[],
  qs: Question[],
  rollups: RollupSource,
) {
  const engine = createEngine(deps);
  // a part cache too small for the period's parts: the engine answers from rollups where it can
  const small = createEngine({ ...deps, config: { ...deps.config, partCacheBytes: 4096 } });
  // asked together, as the tools ask them (each question alone too: the engine's path)
  const asks = qs.map(ask);
  for (const { scope, opts } of asks) {
    const expected = naiveAggregate(all, scope, opts);
    const [fromRollups] = await rollups.answer(scope, [opts]);
    asked++;
    if (fromRollups) {
      served++;
      if (opts.goal) converted++;
      if (opts.breakdown?.includes("entry_page")) entries++;
      assert.deepEqual(fromRollups, expected, JSON.stringify({ scope, opts }));
      // asked again: the kept answer
      assert.deepEqual((await rollups.answer(scope, [opts]))[0], expected);
    }
    assert.deepEqual(await engine.aggregate(scope, opts), expected);
    assert.deepEqual(await small.aggregate(scope, opts), expected);
  }
  // one scope, several questions at once (a plain one beside): behavior_sources' batch
  const { scope } = asks[0];
  const batch = [...asks.map((a) => a.opts), {
    metrics: ["visitors", "pageviews"] as Metric[],
    breakdown: ["page"] as EventField[],
  }];
  const together = await small.aggregateMany(scope, batch);
  batch.forEach((o, i) => assert.deepEqual(together[i], naiveAggregate(all, scope, o)));
}

Deno.test("rollup attributions: sessions, visitors and conversions by source, channel, campaign, referrer and entry page equal the reference", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 80 }),
      fc.array(eventArb, { maxLength: 15 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (first, late, recent, qs) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        // one source for the whole run: what it keeps is checked across new parts and a new raw tail
        const rollups = new RollupSource(deps, new Source(deps));
        const a = toEvents(first);
        await store(deps.kv, { events: a });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        // late arrivals: events of already compacted hours, read from the raw tail
        const b = toEvents(late, 1);
        await store(deps.kv, { events: b });
        await check(deps, [...a, ...b], qs, rollups);
        // folded into later parts of their days (and merged)
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        await check(deps, [...a, ...b], qs, rollups);
        // a raw tail of the last hours, not compacted
        const c = toEvents(recent).map((e) => ({ ...e, received_at: NOW - 1 - (e.received_at % 7_200_000) }));
        await store(deps.kv, { events: c });
        // (the same source: answers kept for the parts alone must not be given with the new raw tail)
        await check(deps, [...a, ...b, ...c], qs, rollups);
        // more of the raw tail (a new visitor's events among them): nothing kept for the tail before is given
        const d = c.map((e) => ({ ...e, id: `${e.id}d`, anonymous_id: `${e.anonymous_id}d` }));
        await store(deps.kv, { events: d });
        await check(deps, [...a, ...b, ...c, ...d], qs, rollups);
        deps.kv.close();
      },
    ),
    { numRuns: 40 },
  );
  console.log(
    `${served} of ${asked} answered from rollups (${converted} with a goal, ${entries} by entry page)`,
  );
  assert.ok(served > asked / 3, `${served} of ${asked} answered from rollups`);
  assert.ok(converted > 0, "conversions answered from rollups");
  assert.ok(entries > 0, "entry pages answered from rollups");
});
