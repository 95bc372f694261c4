/**
 * Feature tables (lib/query/feature_rollup/) against the scan (the engine on the same KV: a small site fits
 * the part cache, so the engine scans) over random `$autocapture` events: clicks (some rage clicks), form
 * changes naming a form or not (a number as form name too), submits, other actions; people and bots on two
 * touchpoints; sessions crossing hours and parts; parts given tables by the backfill, late arrivals compacted
 * after it (parts without a table), a raw tail; periods from local midnights in Berlin around the autumn
 * clock change, in a +05:45 zone, and ending inside a busy hour (a part the period cuts is read).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine, startOfLocalDay } from "../../../lib/query/api.ts";
import type { AggregateOptions, Filter, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { featureAnswers } from "../../../lib/query/feature_rollup/planner.ts";
import { featureQuestion } from "../../../lib/query/feature_rollup/answer.ts";
import { deleteFeatureTable } from "../../../lib/query/feature_rollup/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillFeatureTables } from "../../../lib/jobs/feature_rollup_backfill.ts";
import { listParts } from "../../../lib/parts/store.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");
const DAY = 86_400_000;
const BASE = NOW - 10 * DAY;
/** minutes from BASE where busy hours begin */
const BUSY = [3 * 1440 + 540, 6 * 1440 + 660];

const eventArb = fc.record({
  minute: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 10 * 24 * 60 - 1 }), weight: 3 },
    ...BUSY.map((b) => ({ arbitrary: fc.integer({ min: b, max: b + 59 }), weight: 1 })),
  ),
  visitor: fc.integer({ min: 0, max: 9 }),
  type: fc.constantFrom("$autocapture", "$autocapture", "$autocapture", "$pageview"),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
  action: fc.constantFrom("click", "click", "change", "change", "submit", "copy", undefined),
  page: fc.constantFrom("/", "/signup", "/pricing"),
  element: fc.constantFrom("Sign up", "Email", "button", null),
  form: fc.constantFrom("Sign up form", "Search", 7, null, undefined, undefined),
  rage: fc.constantFrom(true, false, false, "true", undefined),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
function toEvents(raw: Ev[]): StoredEvent[] {
  return raw.map((r) => {
    const id = serial++;
    const properties: Record<string, unknown> = {};
    if (r.action !== undefined) properties.action = r.action;
    if (r.form !== undefined) properties.form_element = r.form;
    if (r.rage !== undefined) properties.rage_click = r.rage;
    return ev({
      id: `e${id}`,
      received_at: BASE + r.minute * 60_000 + (id % 997),
      anonymous_id: `v${r.visitor}`,
      // a session lasts 10 hours: it crosses hours, days and parts
      session_id: `s${r.visitor}-${Math.floor(r.minute / 600)}`,
      event_type: r.type,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      path: r.page,
      element: r.element,
      properties,
    });
  });
}

const questionArb = fc.record({
  tz: fc.constantFrom("UTC", "Europe/Berlin", "Europe/Berlin", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 8 }),
  days: fc.integer({ min: 1, max: 10 }),
  traffic: fc.constantFrom(undefined, ["human"], ["bot"], ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  page: fc.constantFrom(undefined, undefined, "/signup"),
  cut: fc.constantFrom(null, null, 0, 1),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function scopeOf(q: Question): Scope {
  const d = new Date(BASE + q.fromDay * DAY);
  let from = startOfLocalDay({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() }, q.tz);
  let to = Math.min(NOW, from + q.days * DAY);
  if (q.cut !== null) {
    to = BASE + (BUSY[q.cut] + 43) * 60_000;
    from = Math.min(from, to - DAY);
  }
  const filters: Filter[] = [{ field: "event_type", op: "eq", value: "$autocapture" }];
  if (q.page) filters.push({ field: "page", op: "eq", value: q.page });
  return {
    org: "org1",
    env: "production",
    from,
    to,
    timezone: q.tz,
    traffic: q.traffic,
    touchpoint: q.touchpoint,
    filters,
  };
}

/** behavior_features' five questions (tools/behavior_features.ts), and two more shapes. */
function questionsOf(s: Scope): [Scope, AggregateOptions][] {
  const at = (...more: Filter[]) => ({ ...s, filters: [...s.filters!, ...more] });
  const action = (value: string): Filter => ({ field: "prop:action", op: "eq", value });
  const named: Filter = { field: "prop:form_element", op: "prefix", value: "" };
  return [
    [at(action("click")), { metrics: ["events", "visitors", "rage_clicks"], breakdown: ["element", "page"] }],
    [at({ field: "prop:rage_click", op: "eq", value: "true" }), {
      metrics: ["visitors"],
      breakdown: ["element", "page"],
    }],
    [at(action("change"), named), { metrics: ["sessions"], breakdown: ["prop:form_element", "page"] }],
    [at(action("change")), { metrics: ["sessions"], breakdown: ["prop:form_element", "element", "page"] }],
    [at(action("submit")), { metrics: ["events"], breakdown: ["element", "page"] }],
    [at(), { metrics: ["events", "visitors", "rage_clicks"], breakdown: ["prop:action"], limit: 2 }],
    [at(action("change")), { metrics: ["visitors", "sessions", "events"] }],
  ];
}

let served = 0;
/** parts answered per path: merged rows, hourly rows, read at question time */
const paths = { whole: 0, hourly: 0, built: 0 };

async function check(
  deps: Awaited<ReturnType<typeof testDeps>>,
  qs: Question[],
  planner: ReturnType<typeof featureAnswers>,
) {
  const engine = createEngine(deps); // the scan: a small site fits the cache
  for (const q of qs) {
    for (const [s, o] of questionsOf(scopeOf(q))) {
      assert.ok(featureQuestion(s, o));
      const got = await planner.aggregate(s, [o]);
      const want = await engine.aggregateMany(s, [o]);
      assert.deepEqual(got, want, JSON.stringify({ q, o, filters: s.filters }));
      served++;
      paths.whole += planner.last.tables - planner.last.hourly;
      paths.hourly += planner.last.hourly;
      paths.built += planner.last.built;
    }
  }
}

async function dropTables(deps: Awaited<ReturnType<typeof testDeps>>, keep = new Set<string>()) {
  const ids = (await listParts(deps.kv, "org1", "production", "ev")).map((p) => p.meta.id);
  for (const id of ids) if (!keep.has(id)) await deleteFeatureTable(deps.kv, id);
  return new Set(ids);
}

Deno.test("feature tables: behavior_features' questions equal the scan over parts, late parts without a table, a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 120 }),
      fc.array(eventArb, { maxLength: 20 }),
      fc.array(eventArb, { maxLength: 15 }),
      fc.array(questionArb, { minLength: 2, maxLength: 2 }),
      async (first, late, recent, qs) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        await store(deps.kv, { events: toEvents(first) });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        const firstParts = await dropTables(deps); // given tables by the backfill next
        await backfillFeatureTables(deps, "org1", "production", { maxParts: 1_000 });
        const planner = featureAnswers(deps, new Source(deps), 1 << 20);
        await check(deps, qs, planner);
        // late arrivals: raw tail first (added to the kept answers), then parts of their own without a table
        await store(deps.kv, { events: toEvents(late) });
        await check(deps, qs, planner);
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        await dropTables(deps, firstParts);
        const c = toEvents(recent).map((e) => ({ ...e, received_at: NOW - 1 - (e.received_at % 7_200_000) }));
        await store(deps.kv, { events: c });
        await check(deps, qs, planner);
        deps.kv.close();
      },
    ),
    { numRuns: 40 },
  );
  console.log(`${served} answers equal the scan's; parts answered ${JSON.stringify(paths)}`);
  assert.ok(paths.whole > 0 && paths.built > 0, JSON.stringify(paths));
});

Deno.test("feature tables: compaction writes them, a period taking some of a part's hours reads its hourly rows; a cohort or another filter is declined", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const click = (i: number, visitor: string) =>
    ev({
      id: `c${i}`,
      received_at: NOW - DAY + i * 3_600_000, // an hour each
      anonymous_id: visitor,
      event_type: "$autocapture",
      element: "Buy",
      path: "/p",
      properties: { action: "click", rage_click: i > 1 },
    });
  await store(deps.kv, { events: [click(0, "a"), click(1, "b"), click(2, "b")] });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const planner = featureAnswers(deps, new Source(deps), 1 << 20);
  const s: Scope = {
    org: "org1",
    env: "production",
    from: NOW - 2 * DAY,
    to: NOW,
    timezone: "UTC",
    filters: [{ field: "event_type", op: "eq", value: "$autocapture" }, {
      field: "prop:action",
      op: "eq",
      value: "click",
    }],
  };
  const o: AggregateOptions = {
    metrics: ["events", "visitors", "rage_clicks"],
    breakdown: ["element", "page"],
  };
  const got = await planner.aggregate(s, [o]);
  assert.deepEqual(got?.[0].rows, [{
    key: { element: "Buy", page: "/p" },
    metrics: { events: 3, visitors: 2, rage_clicks: 1 },
  }]);
  assert.equal(planner.last.tables, 1);
  assert.equal(planner.last.hourly, 0);
  assert.equal(planner.last.built, 0);
  // a period from the second hour: the part's hourly rows
  const later = await planner.aggregate({ ...s, from: NOW - DAY + 3_600_000 }, [o]);
  assert.deepEqual(later?.[0].rows[0].metrics, { events: 2, visitors: 1, rage_clicks: 1 });
  assert.equal(planner.last.hourly, 1);
  assert.equal(
    featureQuestion({ ...s, filters: [...s.filters!, { field: "country", op: "eq", value: "DE" }] }, o),
    false,
  );
  assert.equal(featureQuestion({ ...s, cohort: { not: { all: [] } } }, o), false);
  assert.equal(featureQuestion(s, { metrics: ["sessions"], breakdown: ["page"] }), false); // clicks keep no sessions
  deps.kv.close();
});
