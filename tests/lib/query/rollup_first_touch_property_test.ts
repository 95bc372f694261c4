/**
 * Explain-a-change's attribution (units under their first event's channel, source, page, country, device type
 * and browser; pageviews per value; bounces; conversions) from the session facts' first events
 * (lib/query/rollup/first_touch.ts) against the scan over all batches (sequence/attribution.ts). Random events
 * whose sessions cross hours and midnight UTC (so parts), whose values change mid-session, with receive
 * times, device times and numbers that tie (the order's later keys decide), late arrivals (raw tail, then
 * later parts and merges), a raw tail, bots, touchpoints, periods cut at local midnights in zones with a DST
 * change (and a +05:45 one: the scan), both units and a goal. Rollup answers, when given, equal the scan's;
 * the engine's answers always do.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import type { RollupSource } from "../../../lib/query/rollup/source.ts";
import { explainedInPasses } from "../../../lib/query/rollup/explain_answers.ts";
import {
  DAY,
  dayEvents,
  DST_BASE as BASE,
  DST_NOW as NOW,
  localMidnight,
  newVisitors,
  randomLives,
  scannedAttribution,
  type Site,
  sortedAttribution as sorted,
  zoneArb,
} from "./rollup_site.ts";

const eventArb = fc.record({
  // often one of a few minutes (one before a midnight UTC): a unit's rows in other sessions, touchpoints or
  // traffic kinds then have events at the same receive time
  minute: fc.oneof(fc.integer({ min: 0, max: 9 * 24 * 60 }), fc.constantFrom(600, 3 * 24 * 60 - 1, 4000)),
  // a few ms apart at most: receive times of one unit's events tie often
  ms: fc.integer({ min: 0, max: 2 }),
  skew: fc.constantFrom(0, 0, -1, 4000),
  visitor: fc.integer({ min: 0, max: 5 }),
  session: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "$autocapture", "sign_up"),
  seq: fc.integer({ min: 0, max: 3 }),
  source: fc.constantFrom("(direct)", "google", "news"),
  channel: fc.constantFrom("Direct", "Organic Search", "Email"),
  page: fc.constantFrom("/", "/a", "/b"),
  country: fc.constantFrom("DE", "GB", null),
  device: fc.constantFrom("desktop", "mobile"),
  browser: fc.constantFrom("Chrome", "Firefox", null),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const toEvents = (raw: Ev[], shift = 0) =>
  dayEvents(raw, shift, (r) => ({
    path: r.page,
    source: r.source,
    channel: r.channel,
    geo: { country: r.country, city: null, asn: null, as_org: null },
    device_type: r.device,
    browser: r.browser,
  }));

const questionArb = fc.record({
  unit: fc.constantFrom<"visitor" | "session">("visitor", "session"),
  fields: fc.constantFrom<AttributionOptions["fields"]>(
    ["channel", "source", "page", "country", "device_type", "browser"],
    ["page", "country"],
    [],
  ),
  goal: fc.boolean(),
  traffic: fc.constantFrom(undefined, undefined, ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, "tp1"),
  tz: zoneArb(),
  fromDay: fc.integer({ min: 0, max: 6 }),
  days: fc.integer({ min: 1, max: 10 }),
  // minutes taken off the period's end and added to its start: a period cutting hours (a previous window
  // ends at now's time of day), whose cut parts' rows are read from the parts beside the rollups
  endCut: fc.constantFrom(0, 0, 37, 90),
  startCut: fc.constantFrom(0, 0, 20),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; o: AttributionOptions; cut: boolean } {
  const from = localMidnight(BASE, q.fromDay, q.tz);
  return {
    cut: q.endCut + q.startCut > 0,
    scope: {
      org: "org1",
      env: "production",
      from: from + q.startCut * 60_000,
      to: Math.min(NOW, from + q.days * DAY) - q.endCut * 60_000,
      timezone: q.tz,
      // a goal is asked over people (as the tool asks it)
      traffic: q.goal ? undefined : q.traffic,
      touchpoint: q.touchpoint,
      filters: [],
    },
    o: { fields: q.fields, unit: q.unit, ...(q.goal ? { goal: { event_type: "sign_up" } } : {}) },
  };
}

let served = 0, asked = 0, converted = 0, bySession = 0, cutServed = 0;
async function check(site: Site, qs: Question[], rollups: RollupSource) {
  const scans = new ScanContexts(new Source(site.deps));
  // a part cache too small for the period's parts: the engine answers from the facts where it can
  const small = createEngine({ ...site.deps, config: { ...site.deps.config, partCacheBytes: 4096 } });
  for (const { scope, o, cut } of qs.map(ask)) {
    const expected = await scannedAttribution(scans, scope, o);
    const got = await rollups.attribution(scope, o);
    asked++;
    if (got) {
      served++;
      if (o.goal) converted++;
      if (o.unit === "session") bySession++;
      if (cut) cutServed++;
      assert.deepEqual(sorted(got), expected, JSON.stringify({ scope, o }));
      // asked again: the kept answer
      assert.deepEqual(sorted((await rollups.attribution(scope, o))!), expected);
    }
    assert.deepEqual(sorted(await small.attribution(scope, o)), expected);
    // a question allowed little working memory (and a part cache too small for the scan): its first rows read
    // in passes over ranges of visitor numbers (or refused when one part's rows or the other questions' do not
    // fit), the same answer
    for (const limit of [400, 800, 1_600]) {
      const tight = createEngine({
        ...site.deps,
        config: { ...site.deps.config, partCacheBytes: 4096, questionMemoryBytes: limit },
      });
      const got = await tight.attribution(scope, o).catch((e) => {
        if ((e as { status?: number }).status === 422) return null;
        throw e;
      });
      if (got === null) continue;
      assert.deepEqual(sorted(got), expected, JSON.stringify({ scope, o, limit }));
    }
  }
}

Deno.test("rollup first events: explain-a-change's units under their first event's values equal the scan's", async () => {
  // one source for the whole run: what it keeps is checked across new parts and a new raw tail (answers kept
  // for the parts alone must not be given with a new raw tail, nor those for an earlier tail)
  await randomLives(
    eventArb,
    questionArb,
    { first: 80, runs: 40, toEvents, more: newVisitors },
    (site, run) => check(site, run.qs, run.kept()),
  );
  console.log(
    `${served} of ${asked} answered from rollups (${converted} with a goal, ${bySession} by session, ${cutServed} ` +
      `periods cutting hours)`,
  );
  assert.ok(cutServed > 0, "periods cutting hours answered from rollups");
  assert.ok(served > asked / 3, `${served} of ${asked} answered from rollups`);
  assert.ok(converted > 0 && bySession > 0, "goals and sessions answered from rollups");
  console.log(
    `${explainedInPasses.answers} answered in ${explainedInPasses.passes} passes over visitor ranges`,
  );
  assert.ok(explainedInPasses.answers > 0, "some answered in passes");
});
