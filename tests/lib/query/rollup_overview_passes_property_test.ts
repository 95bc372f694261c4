/**
 * The overview's session totals (lib/query/rollup/plain_answers.ts `spanKept`) counted in passes over ranges of
 * visitor numbers when the parts' keys, the engaged counts and the shared-key search's table would pass half of
 * what the question may hold (QUESTION_MEMORY_MB): random sessions crossing hours and midnights (so parts),
 * late arrivals (then merged parts), a raw tail, bots and a second touchpoint; every random question asked on
 * an engine with room (one pass, equal to the reference) and again on engines allowed a few hundred bytes to a
 * few kB: the same answer, or refused with a 422, never another answer. Also the questions together (the
 * overview's batch).
 */
import assert from "node:assert/strict";
import type { AggregateOptions, AggregateResult, Metric, Scope } from "../../../lib/query/api.ts";
import { createEngine } from "../../../lib/query/api.ts";
import { overviewInPasses } from "../../../lib/query/rollup/plain_answers.ts";
import fc from "fast-check";
import {
  DAY,
  dayEvents,
  DST_BASE as BASE,
  DST_NOW as NOW,
  expected,
  lastHours,
  live,
  localMidnight,
  MINUTE,
  type Site,
  zoneArb,
} from "./rollup_site.ts";

/** A session: its visitor, start, events minutes to an hour apart (so across hours, midnights and parts). */
const sessionArb = fc.record({
  visitor: fc.integer({ min: 0, max: 15 }),
  session: fc.integer({ min: 0, max: 3 }),
  // mostly late in a UTC day: sessions crossing midnight lie in two parts
  start: fc.oneof(
    fc.integer({ min: 0, max: 9 * 24 * 60 }),
    fc.integer({ min: 0, max: 8 }).map((d) => d * 24 * 60 + 23 * 60 + 20),
  ),
  steps: fc.array(
    fc.record({
      gap: fc.integer({ min: 0, max: 29 }),
      type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up"),
      seq: fc.integer({ min: 0, max: 12 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  // device time: sometimes a clock behind by two hours (a session that is not simple: its block joined whole)
  skew: fc.constantFrom(0, 0, 0, 0, -1_000, -7_200_000),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
});
type Session = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

// entry and exit pages differ by where a session's first and last pageviews fall
const toEvents = (sessions: Session[], shift = 0) =>
  dayEvents(
    sessions.flatMap((x) => {
      let minute = x.start;
      return x.steps.map((st) => ({ ...x, ...st, minute: minute += st.gap }));
    }),
    shift,
    (r) => ({ path: r.minute % 3 ? "/" : "/b" }),
  );

const questionArb = fc.record({
  // the overview asks its session figures with the others: sessions always, so its totals are counted
  metrics: fc.subarray<Metric>([
    "views_per_session",
    "bounce_rate",
    "session_duration_s",
    "engaged_visitors",
    "dropped_events",
    "visitors",
    "pageviews",
    "entries",
    "exits",
  ]).map((m): Metric[] => ["sessions", ...m]),
  // the overview's pages list: entries and exits by page
  byPage: fc.constantFrom(false, false, true),
  traffic: fc.constantFrom(undefined, ["human"], ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: zoneArb(false),
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 10 }),
  // a period cutting parts' hours: spans cut by it, their blocks joined whole
  cut: fc.constantFrom(0, 0, 17, 600),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: AggregateOptions } {
  const from = localMidnight(BASE, q.fromDay, q.tz) + q.cut * MINUTE;
  return {
    scope: {
      org: "org1",
      env: "production",
      from,
      to: Math.min(NOW, from + q.days * DAY - q.cut * 2 * MINUTE),
      timezone: q.tz,
      traffic: q.traffic,
      touchpoint: q.touchpoint,
    },
    opts: q.byPage ? { metrics: q.metrics, breakdown: ["page"] } : { metrics: q.metrics },
  };
}

const LIMITS = [400, 900, 2_000, 4_000];
let asked = 0, inPasses = 0, refused = 0, onePass = 0;

/** An engine on the rollups (its part cache fits no part), allowed `limit` bytes a question (0: the default). */
const engineOf = (site: Site, limit: number) =>
  createEngine({
    ...site.deps,
    config: { ...site.deps.config, partCacheBytes: 1, questionMemoryBytes: limit },
  });

/** The answers of an engine allowed `limit` bytes a question (null: refused with the 422). */
async function tightly(site: Site, limit: number, scope: Scope, os: AggregateOptions[]) {
  const tight = engineOf(site, limit);
  const before = overviewInPasses.answers;
  const got = await tight.aggregateMany(scope, os).catch((e) => {
    if ((e as { status?: number }).status === 422) return null;
    throw e;
  });
  const w = tight.workingMemory();
  assert.ok(w.peakQuestion <= limit, `held ${w.peakQuestion} of ${limit}`);
  assert.equal(w.held, 0, "nothing held once answered");
  return { got, passed: overviewInPasses.answers > before };
}

async function check(site: Site, qs: Question[]) {
  const asks = qs.map(ask);
  for (const { scope, opts } of asks) {
    const want = expected(site, scope, opts);
    // with room: one pass
    const before = overviewInPasses.answers;
    const one = await engineOf(site, 0).aggregate(scope, opts);
    assert.equal(overviewInPasses.answers, before, "one pass with room");
    assert.deepEqual(one, want, JSON.stringify({ scope, opts }));
    // (the rollups answer most questions; the others are scanned, in one pass)
    const served = (await site.rollups().answer(scope, [opts]))[0] !== null;
    for (const limit of LIMITS) {
      if (served) asked++;
      const { got, passed } = await tightly(site, limit, scope, [opts]);
      if (got === null) {
        if (served) refused++;
        continue;
      }
      if (passed) inPasses++;
      else if (served) onePass++;
      assert.deepEqual(got[0], one, JSON.stringify({ scope, opts, limit, passed }));
    }
  }
  // the questions together over the first scope: the overview's batch
  const { scope } = asks[0];
  const os = asks.map((a) => a.opts);
  const want: AggregateResult[] = os.map((o) => expected(site, scope, o));
  for (const limit of LIMITS) {
    const { got } = await tightly(site, limit, scope, os);
    if (got) assert.deepEqual(got, want, JSON.stringify({ scope, os, limit }));
  }
}

Deno.test("rollup overview in passes: past the question's memory, session totals counted in passes over visitor ranges as in one, or refused", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(sessionArb, { minLength: 1, maxLength: 40 }),
      fc.array(sessionArb, { maxLength: 6 }),
      fc.array(sessionArb, { maxLength: 4 }),
      fc.array(questionArb, { minLength: 3, maxLength: 3 }),
      async (first, late, recent, qs) => {
        // checked with late arrivals in the raw tail, then merged into parts, then with a raw tail of new sessions
        await live(
          NOW,
          {
            first: toEvents(first),
            // late arrivals: new sessions, and more events of the first sessions (so in two parts: shared keys)
            late: [...toEvents(late, 1), ...toEvents(first.slice(0, 12), 2 * MINUTE + 1)],
            tail: () => lastHours(toEvents(recent), NOW),
          },
          (site) => check(site, qs),
        );
      },
    ),
    {
      numRuns: Number(Deno.env.get("RUNS") ?? 20),
      endOnFailure: true,
      ...(Deno.env.get("SEED") ? { seed: Number(Deno.env.get("SEED")), path: Deno.env.get("FCPATH") } : {}),
    },
  );
  console.log(
    `${asked} tight asks the rollups answer: ${inPasses} answered in passes, ${onePass} in one pass, ${refused} refused; ` +
      `${overviewInPasses.answers} totals counted in ${overviewInPasses.passes} passes`,
  );
  assert.ok(inPasses > asked / 5, `${inPasses} of ${asked} answered in passes`);
  assert.ok(overviewInPasses.passes >= 2 * overviewInPasses.answers);
});
