/**
 * The engine against the reference semantics (reference.ts, plain loops over the stored records): random
 * events, random questions, answered from the raw tail, after compaction into parts, and after late
 * arrivals landed in later parts. Always equal.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type {
  AggregateOptions,
  EventField,
  Filter,
  FunnelOptions,
  PathsOptions,
  RetentionOptions,
  Scope,
} from "../../../lib/query/api.ts";
import { naiveAggregate, naiveFunnel, naivePaths, naiveRetention, naiveSessions } from "./reference.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

// the 10 days before NOW hold both autumn clock changes: Europe on 25 October, the US on 1 November
const NOW = Date.parse("2026-11-03T12:00:00Z");
const BASE = NOW - 10 * 86_400_000;
const PAGES = ["/", "/pricing", "/blog/a", "/signup"];

const eventArb = fc.record({
  slot: fc.integer({ min: 0, max: 9 * 24 * 60 }), // minute of the 9 days before now - 1 day
  visitor: fc.constantFrom("v1", "v2", "v3", "v4", "v5"),
  session: fc.constantFrom("s1", "s2", "s3"),
  type: fc.constantFrom(
    "$pageview",
    "$pageview",
    "$pageview",
    "$pageleave",
    "$autocapture",
    "$web_vitals",
    "sign_up",
    "purchase",
  ),
  page: fc.constantFrom(...PAGES),
  country: fc.constantFrom("DE", "GB", null),
  device: fc.constantFrom("desktop", "mobile"),
  source: fc.constantFrom("(direct)", "Google", "chatgpt.com"),
  traffic: fc.constantFrom("human", "human", "human", "bot", "ai_agent"),
  tp: fc.constantFrom("tp1", "tp2"),
  num: fc.integer({ min: 0, max: 100 }),
  flag: fc.boolean(),
  plan: fc.constantFrom("pro", "team"),
  host: fc.constantFrom("acme.test", "shop.acme.test"),
  city: fc.constantFrom("Berlin", null),
  browser: fc.constantFrom("Chrome", "Firefox"),
  os: fc.constantFrom("Linux", "iOS"),
  platform: fc.constantFrom("web", "ios"),
  channel: fc.constantFrom("Direct", "Organic Search", "AI Assistant"),
  referrerHost: fc.constantFrom("google.com", null),
  utm: fc.constantFrom(null, {
    source: "news",
    medium: "email",
    campaign: "spring",
    term: null,
    content: null,
  }),
  agent: fc.constantFrom("GPTBot", "ClaudeBot", "Googlebot", "unknown"),
  // sequence numbers with jumps, repeats and restarts; device times that disagree with arrival order
  seqNo: fc.integer({ min: 0, max: 6 }),
  clock: fc.constantFrom<"arrival" | "early" | "same" | "invalid">(
    "arrival",
    "arrival",
    "early",
    "same",
    "invalid",
  ),
});

type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;
type Q = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

/** A device time: the arrival time, an hour early, one instant per day (order by number), or unparsable. */
function deviceTime(t: number, kind: Ev["clock"], slot: number): string {
  if (kind === "invalid") return "not a time";
  if (kind === "same") return new Date(BASE + Math.floor(slot / 1440) * 86_400_000).toISOString();
  return new Date(kind === "early" ? t - 3_600_000 : t).toISOString();
}

function toEvents(raw: Ev[]): StoredEvent[] {
  // every event gets its own time (unique slot + even index; late events add 1, so they stay apart too):
  // orders are fully determined
  return raw.map((r, i) => {
    const props: Record<string, unknown> = {};
    if (r.type === "$pageleave") {
      // (one visitor's, and now and then another's, without its depth: a report behind one mean only, whose
      // visitor is no reporter)
      const depth = r.visitor !== "v5" && r.num % 7 ? { depth_percent: r.num } : {};
      Object.assign(props, depth, { engagement_time_ms: r.num * 100 });
    }
    if (r.type === "$autocapture") Object.assign(props, { action: "click", rage_click: r.flag });
    if (r.type === "purchase") Object.assign(props, { plan: r.plan, amount: r.num });
    return ev({
      received_at: BASE + r.slot * 60_000 + 2 * i,
      sequence_no: r.seqNo,
      device_time: deviceTime(BASE + r.slot * 60_000 + 2 * i, r.clock, r.slot),
      anonymous_id: r.visitor,
      session_id: r.session,
      event_type: r.type,
      path: r.page,
      screen: r.page,
      geo: { country: r.country, city: r.city, asn: null, as_org: null },
      device_type: r.device as "desktop",
      source: r.source,
      host: r.host,
      browser: r.browser,
      os: r.os,
      platform: r.platform as "web",
      channel: r.channel,
      referrer_host: r.referrerHost,
      utm: r.utm,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : r.agent,
      touchpoint: r.tp,
      element: r.type === "$autocapture" ? "Buy" : null,
      properties: props,
    });
  });
}

const fieldArb = fc.constantFrom<EventField>(
  "page",
  "country",
  "device_type",
  "source",
  "event_type",
  "entry_page",
  "exit_page",
  "prop:plan",
  "traffic",
  "host",
  "city",
  "browser",
  "os",
  "platform",
  "channel",
  "referrer_host",
  "utm_source",
  "utm_campaign",
  "element",
  "crawler",
  "crawler_category",
);
const filterArb: fc.Arbitrary<Filter> = fc.record({
  field: fieldArb,
  op: fc.constantFrom("eq", "neq", "contains", "in", "prefix") as fc.Arbitrary<Filter["op"]>,
  value: fc.constantFrom<string | string[]>(
    "/",
    "/pricing",
    "DE",
    "mobile",
    "Google",
    "$pageview",
    "pro",
    ["/", "/signup"],
    "o",
    "human",
    "shop.acme.test",
    "Berlin",
    "Chrome",
    "iOS",
    "ios",
    "Organic Search",
    "google.com",
    "news",
    "Buy",
    "ClaudeBot",
    "ai_training",
    ["ai_training", "search_engine"],
  ),
});
const queryArb = fc.record({
  filters: fc.array(filterArb, { maxLength: 2 }),
  breakdown: fc.array(fieldArb, { maxLength: 2 }),
  bucket: fc.constantFrom(
    undefined,
    "day",
    "week",
    "month",
    "hour_of_day",
    "day_of_week",
    "hour",
  ) as fc.Arbitrary<
    AggregateOptions["bucket"]
  >,
  traffic: fc.constantFrom(undefined, ["human"], ["bot", "ai_agent"], [
    "human",
    "bot",
    "ai_agent",
  ]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 5 }),
  days: fc.integer({ min: 1, max: 10 }),
  // the window ends at a day's end or inside it (as a window ending "now" does), and is asked again later
  short: fc.constantFrom(0, 0, 5, 13).map((h) => h * 3_600_000),
  later: fc.constantFrom(1, 60_000, 3_600_000, 6 * 3_600_000, 86_400_000),
});

const METRICS: AggregateOptions["metrics"] = [
  "visitors",
  "viewers",
  "engaged_visitors",
  "sessions",
  "pageviews",
  "events",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
  "engagement_time_s",
  "scroll_depth_percent",
  "reporters",
  "exits",
  "entries",
  "exit_rate",
  "rage_clicks",
  "conversions",
  "conversion_rate",
  "dropped_events",
];

/** `later`: the window ends this much later (a question at a later "now" over the same parts). */
async function compare(
  deps: Awaited<ReturnType<typeof testDeps>>,
  all: StoredEvent[],
  q: Q,
  later = 0,
) {
  const engine = createEngine(deps);
  const scope: Scope = {
    org: "org1",
    env: "production",
    from: BASE + q.fromDay * 86_400_000,
    to: BASE + (q.fromDay + q.days) * 86_400_000 - q.short + later,
    timezone: q.tz,
    traffic: q.traffic,
    touchpoint: q.touchpoint,
    filters: q.filters,
  };
  const opts: AggregateOptions = {
    metrics: METRICS,
    breakdown: q.breakdown,
    bucket: q.bucket,
    goal: { event_type: "purchase" },
  };
  assert.deepEqual(await engine.aggregate(scope, opts), naiveAggregate(all, scope, opts));
  const other: AggregateOptions = {
    metrics: ["visitors", "bounce_rate", "exit_rate", "engaged_visitors", "dropped_events"],
    breakdown: ["country"],
    limit: 2,
  };
  const lean: AggregateOptions = { metrics: ["pageviews", "visitors", "viewers"], breakdown: ["page"] };
  const leanRuns: AggregateOptions = { metrics: ["viewers", "visitors"], breakdown: ["source"] };
  // page figures without any per-session metric (the pages tool's shape)
  const pages: AggregateOptions = {
    metrics: ["pageviews", "viewers", "exit_rate", "engagement_time_s", "entries", "rage_clicks"],
    breakdown: ["page"],
  };
  assert.deepEqual(
    await engine.aggregateMany(scope, [lean, other, opts, pages, leanRuns]),
    [lean, other, opts, pages, leanRuns].map((o) => naiveAggregate(all, scope, o)),
  );
  const steps = [{ event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/" } as Filter] }, {
    event_type: "sign_up",
  }, { event_type: "purchase" }];
  for (const by of ["visitor", "session"] as const) {
    const f = { steps, by, window_ms: by === "visitor" ? 3 * 86_400_000 : undefined };
    assert.deepEqual(await engine.funnel(scope, f), naiveFunnel(all, scope, f));
  }
  // pages by prefix, a property condition, a short window, split by a field (top 1 + the rest)
  const f2: FunnelOptions = {
    steps: [
      { event_type: "$pageview", filters: [{ field: "page", op: "prefix", value: "/blog/" }] },
      { event_type: "$pageview" },
      { event_type: "purchase", filters: [{ field: "prop:plan", op: "eq", value: "pro" }] },
    ],
    window_ms: 6 * 3_600_000,
    split: { field: q.breakdown[0] === "country" ? "country" : "device_type", top: 1 },
  };
  assert.deepEqual(await engine.funnel(scope, f2), naiveFunnel(all, scope, f2));
  const p = {
    anchor: { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" } as Filter] },
    direction: "after" as const,
    depth: 2,
  };
  assert.deepEqual(await engine.paths(scope, p), naivePaths(all, scope, p));
  const pb = { ...p, direction: "before" as const, step: "event" as const };
  assert.deepEqual(await engine.paths(scope, pb), naivePaths(all, scope, pb));
  const pe: PathsOptions = {
    anchor: { event_type: "sign_up" },
    direction: "after",
    depth: 3,
    step: "page_or_event",
    rank: "visitors",
    limit: 3,
  };
  assert.deepEqual(await engine.paths(scope, pe), naivePaths(all, scope, pe));
  assert.deepEqual(
    await engine.retention(scope, { period: "day" }),
    naiveRetention(all, scope, { period: "day" }),
  );
  const byEvent: RetentionOptions = {
    period: "day",
    periods: 4,
    cohort: { event_type: "sign_up" },
    returning: { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
  };
  assert.deepEqual(await engine.retention(scope, byEvent), naiveRetention(all, scope, byEvent));
  const returnAny: RetentionOptions = { period: "week", cohort: { event_type: "purchase" } };
  assert.deepEqual(await engine.retention(scope, returnAny), naiveRetention(all, scope, returnAny));
  assert.deepEqual(await engine.sessions(scope, { limit: 5 }), naiveSessions(all, scope, { limit: 5 }));
}

Deno.test("query property: raw, compacted and late-arrival answers all equal the reference computation", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 60 }),
      fc.array(eventArb, { maxLength: 15 }),
      queryArb,
      async (first, late, q) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const a = toEvents(first);
          await store(deps.kv, { events: a });
          await compare(deps, a, q); // raw tail only
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(deps, a, q); // parts only
          await compare(deps, a, q, q.later); // the same parts, the window ending later
          const b = toEvents(late).map((e) => ({ ...e, received_at: e.received_at + 1 }));
          await store(deps.kv, { events: b });
          await compare(deps, [...a, ...b], q); // parts + late raw rows inside compacted windows
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await compare(deps, [...a, ...b], q); // late rows in later parts, merged by day
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 40 },
  );
});
