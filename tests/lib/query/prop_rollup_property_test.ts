/**
 * The property planner (lib/query/prop_rollup/) against the scan (the engine on the same KV, which answers
 * these questions by scanning) over random events: several properties (strings, numbers, booleans, JSON null,
 * objects, values sharing their first 200 characters, ids past the cap), parts compacted and given tables by
 * the backfill, late arrivals compacted after it (parts without a table), a raw tail, people and bots on two
 * touchpoints, periods from local midnights in Berlin around the autumn clock change to a midnight or into
 * a busy hour (an hour cut: taken when its rows lie on one side), and in a +05:45 zone (the planner
 * declines: the scan answers).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine, startOfLocalDay } from "../../../lib/query/api.ts";
import type { AggregateOptions, EventField, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { propAnswers } from "../../../lib/query/prop_rollup/planner.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillPropRollups } from "../../../lib/jobs/prop_rollup_backfill.ts";
import { deletePropRollup } from "../../../lib/query/prop_rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

// ten days holding Europe's autumn clock change (25 Oct 2026)
const NOW = Date.parse("2026-10-30T12:00:00Z");
const DAY = 86_400_000;
const BASE = NOW - 10 * DAY;
/** low caps, so that keys pass them in small parts: their values merged over hours, or not kept */
const CAP = 1, WHOLE_CAP = 2;

const LONG = "x".repeat(200);
/** minutes from BASE (20 Oct 12:00Z) where busy hours begin: 23 Oct 21:00Z, 26 Oct 23:00Z, 27 Oct 22:00Z */
const BUSY = [3 * 1440 + 540, 6 * 1440 + 660, 7 * 1440 + 600];

const eventArb = fc.record({
  // a third in three busy hours that a period ending 17 minutes before a midnight cuts (Berlin summer and
  // winter time, UTC), so rows lie on both sides of the cut
  minute: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 10 * 24 * 60 - 1 }), weight: 3 },
    ...BUSY.map((b) => ({ arbitrary: fc.integer({ min: b, max: b + 59 }), weight: 1 })),
  ),
  visitor: fc.integer({ min: 0, max: 11 }),
  type: fc.constantFrom("purchase", "purchase", "$pageview", "sign_up"),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
  plan: fc.option(fc.constantFrom("pro", "team", null), { nil: undefined }),
  amount: fc.option(fc.constantFrom(29, 99, 249, 499, 29.5), { nil: undefined }),
  flag: fc.option(fc.boolean(), { nil: undefined }),
  obj: fc.option(fc.constantFrom({ a: 1 }, [1, 2], `${LONG}a`, `${LONG}b`), { nil: undefined }),
  withId: fc.boolean(),
  // a wide event (70 keys): the part keeps the rarer keys in its shared column
  wide: fc.integer({ min: 0, max: 30 }),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
function toEvents(raw: Ev[]): StoredEvent[] {
  return raw.map((r) => {
    const id = serial++;
    const properties: Record<string, unknown> = {};
    if (r.plan !== undefined) properties.plan = r.plan;
    if (r.amount !== undefined) properties.amount = r.amount;
    if (r.flag !== undefined) properties.flag = r.flag;
    if (r.obj !== undefined) properties.obj = r.obj;
    if (r.withId) properties.order_id = `o${id}`;
    if (r.wide === 0) { for (let k = 0; k < 70; k++) properties[`w${k}`] = k % 3 ? `v${k}` : id % 2; }
    return ev({
      id: `e${id}`,
      received_at: BASE + r.minute * 60_000 + (id % 997),
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}-${Math.floor(r.minute / 30)}`,
      event_type: r.type,
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      touchpoint: r.tp,
      properties,
    });
  });
}

const questionArb = fc.record({
  tz: fc.constantFrom("UTC", "Europe/Berlin", "Europe/Berlin", "Asia/Kathmandu"),
  fromDay: fc.integer({ min: 0, max: 8 }),
  days: fc.integer({ min: 1, max: 10 }),
  event: fc.constantFrom("purchase", "$pageview", "sign_up", "nothing"),
  traffic: fc.constantFrom(undefined, ["human"], ["bot"], ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  limit: fc.constantFrom(undefined, 2),
  // a period ending at minute 43 of a busy hour: an hour the end cuts (the planner declines when rows lie on
  // both sides of it)
  cut: fc.constantFrom(null, null, 0, 1, 2),
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
  return {
    org: "org1",
    env: "production",
    from,
    to,
    timezone: q.tz,
    traffic: q.traffic,
    touchpoint: q.touchpoint,
    filters: [{ field: "event_type", op: "eq", value: q.event }],
  };
}

const KEYS = ["plan", "amount", "flag", "obj", "order_id", "w1", "w3", "missing"];
let served = 0, asked = 0;

/**
 * Deletes the tables of the parts not in `keep` (compaction may write tables with the default caps): parts
 * without a table, or to be given one by the backfill with the test's low caps. Answers the part ids.
 */
async function dropTables(deps: Awaited<ReturnType<typeof testDeps>>, keep = new Set<string>()) {
  const ids = (await listParts(deps.kv, "org1", "production", "ev")).map((p) => p.meta.id);
  for (const id of ids) if (!keep.has(id)) await deletePropRollup(deps.kv, id);
  return new Set(ids);
}

async function check(
  deps: Awaited<ReturnType<typeof testDeps>>,
  qs: Question[],
  planner: ReturnType<typeof propAnswers>,
) {
  const engine = createEngine(deps); // the scan: the engine does not route property questions yet
  for (const q of qs) {
    const s = scopeOf(q);
    const note = JSON.stringify(q);
    const keysGot = await planner.keys(s, q.event);
    const keysWant = await engine.propertyKeys(s, q.event);
    asked++;
    if (q.tz === "Asia/Kathmandu") assert.equal(keysGot, null, note);
    if (keysGot) {
      served++;
      assert.deepEqual(keysGot, keysWant, `keys ${note}`);
    }
    const asks: AggregateOptions[] = KEYS.map((k) => ({
      metrics: ["visitors", "events"],
      breakdown: [`prop:${k}` as EventField],
      limit: q.limit,
    }));
    asks.push({ metrics: ["events"], breakdown: ["prop:plan"], sort: { by: "key" } });
    const got = await planner.aggregate(s, asks);
    const want = await engine.aggregateMany(s, asks);
    if (got) assert.deepEqual(got, want, `values ${note}`);
    else assert.ok(q.tz === "Asia/Kathmandu" || q.cut !== null, note);
    if (q.tz === "Asia/Kathmandu") assert.equal(got, null, note);
  }
}

Deno.test("property rollups: keys and values equal the scan over parts, late parts without a table, a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 100 }),
      fc.array(eventArb, { maxLength: 15 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (first, late, recent, qs) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        await store(deps.kv, { events: toEvents(first) });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        const firstParts = await dropTables(deps); // given tables with the test's caps next
        await backfillPropRollups(deps, "org1", "production", {
          cap: CAP,
          wholeCap: WHOLE_CAP,
          maxParts: 1_000,
        });
        // one planner all along: its kept period answers meet a changed raw tail and new parts
        const planner = propAnswers(deps, new Source(deps), 1 << 20);
        await check(deps, qs, planner);
        // late arrivals: raw tail first (added to the kept answers), then parts of their own without a table
        await store(deps.kv, { events: toEvents(late) });
        await check(deps, qs, planner);
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        await dropTables(deps, firstParts); // the late arrivals' parts: without a table
        const c = toEvents(recent).map((e) => ({ ...e, received_at: NOW - 1 - (e.received_at % 7_200_000) }));
        await store(deps.kv, { events: c });
        await check(deps, qs, planner);
        deps.kv.close();
      },
    ),
    { numRuns: 50 },
  );
  console.log(`${served} of ${asked} answered by the planner`);
  assert.ok(served > asked / 2, `${served} of ${asked} answered by the planner`);
});

Deno.test("property rollups: a part the period cuts is read for a key whose values its table keeps merged", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const at = (iso: string, plan: string) =>
    ev({ received_at: Date.parse(iso), event_type: "purchase", properties: { plan } });
  await store(deps.kv, { events: [at("2026-10-23T10:10:00Z", "a"), at("2026-10-23T22:50:00Z", "b")] });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await dropTables(deps);
  await backfillPropRollups(deps, "org1", "production", { cap: 1, wholeCap: 2 });
  const planner = propAnswers(deps, new Source(deps), 1 << 20);
  // Berlin's 24 Oct: from 22:00Z on the 23rd, so the part's 10:00Z hour is outside
  const s: Scope = {
    org: "org1",
    env: "production",
    from: Date.parse("2026-10-23T22:00:00Z"),
    to: Date.parse("2026-10-24T22:00:00Z"),
    timezone: "Europe/Berlin",
    filters: [{ field: "event_type", op: "eq", value: "purchase" }],
  };
  const asks: AggregateOptions[] = [{ metrics: ["visitors", "events"], breakdown: ["prop:plan"] }];
  const got = await planner.aggregate(s, asks);
  assert.deepEqual(got, await createEngine(deps).aggregateMany(s, asks));
  assert.deepEqual(got?.[0].rows.map((r) => r.key["prop:plan"]), ["b"]);
  assert.equal(planner.last.built, 1);
  deps.kv.close();
});

Deno.test("property rollups: a kept period answer counts a raw-tail visitor once, whether the parts had it or not", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const buy = (i: number, visitor: string, plan: string, at: number) =>
    ev({ id: `k${i}`, received_at: at, anonymous_id: visitor, event_type: "purchase", properties: { plan } });
  await store(deps.kv, { events: [buy(0, "v1", "pro", NOW - 3 * DAY), buy(1, "v2", "pro", NOW - 2 * DAY)] });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await backfillPropRollups(deps, "org1", "production");
  const s: Scope = {
    org: "org1",
    env: "production",
    from: NOW - 5 * DAY,
    to: NOW,
    timezone: "UTC",
    filters: [{ field: "event_type", op: "eq", value: "purchase" }],
  };
  const asks: AggregateOptions[] = [{ metrics: ["visitors", "events"], breakdown: ["prop:plan"] }];
  const planner = propAnswers(deps, new Source(deps), 1 << 20);
  const engine = createEngine(deps);
  assert.deepEqual(await planner.aggregate(s, asks), await engine.aggregateMany(s, asks));
  // the raw tail: v1 again (in the parts' members), v3 twice (new)
  await store(deps.kv, {
    events: [
      buy(2, "v1", "pro", NOW - 60_000),
      buy(3, "v3", "pro", NOW - 50_000),
      buy(4, "v3", "pro", NOW - 40_000),
    ],
  });
  const got = await planner.aggregate(s, asks);
  assert.deepEqual(got, await engine.aggregateMany(s, asks));
  assert.deepEqual(got?.[0].rows[0].metrics, { visitors: 3, events: 5 });
  assert.deepEqual(await planner.keys(s, "purchase"), [{ key: "plan", events: 5, visitors: 3 }]);
  deps.kv.close();
});
