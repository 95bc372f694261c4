/**
 * The raw tail's rollup on the rollup path: built once while the tail's records and the visitor count stay the
 * same (a question over an unchanged tail reuses it; a new record builds it again), answers equal to the
 * reference either way, and a large tail's build gives the event loop turns (counted, not timed).
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { buildRollup, buildRollupTurning } from "../../../lib/query/rollup/build.ts";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { DST_NOW as NOW, expected, HOUR, openSite } from "./rollup_site.ts";

function events(n: number, at: (i: number) => number): StoredEvent[] {
  return Array.from({ length: n }, (_, i) =>
    ev({
      received_at: at(i),
      anonymous_id: `v${i % 37}`,
      session_id: `s${i % 53}`,
      sequence_no: i,
      event_type: i % 5 === 0 ? "$pageleave" : "$pageview",
      path: ["/", "/pricing", "/blog/a"][i % 3],
      properties: i % 5 === 0 ? { engagement_time_ms: 1000 + i, depth_percent: i % 100 } : {},
    }));
}

const scope = (from: number): Scope => ({
  org: "org1",
  env: "production",
  from,
  to: NOW,
  timezone: "UTC",
  traffic: ["human"],
});
const questions: AggregateOptions[] = [
  { metrics: ["pageviews", "visitors", "viewers"], breakdown: ["page"] },
  { metrics: ["events", "sessions", "bounce_rate"] },
  { metrics: ["events", "visitors"], breakdown: ["country"] },
];

Deno.test("rollup tail: two questions over an unchanged raw tail build its rollup once; a new record builds it again", async () => {
  const site = await openSite(NOW);
  await site.add(events(40, (i) => NOW - 3 * 24 * HOUR + i * 60_000));
  await site.compact();
  await site.add(events(30, (i) => NOW - 5 * HOUR + i * 90_000));
  const rollups = site.rollups();
  const check = async (from: number) => {
    const got = await rollups.answer(scope(from), questions);
    questions.forEach((o, i) => {
      assert.ok(got[i], "answered from rollups");
      assert.deepEqual(got[i], expected(site, scope(from), o));
    });
  };
  await check(NOW - 7 * 24 * HOUR);
  // another period over the same tail: its hours taken from the kept rollup
  await check(NOW - 3 * HOUR);
  await check(NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 1);
  await site.add(events(3, (i) => NOW - HOUR + i * 1000).map((e) => ({ ...e, anonymous_id: "new-visitor" })));
  await check(NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 2);
  await check(NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 2);
  await site.close();
});

Deno.test("rollup tail: a large tail's build gives the event loop a turn every 2,048 rows, same rollup", async () => {
  const b = await buildEventBatch(events(10_000, (i) => NOW - 30 * HOUR + i * 10_000));
  const visitorOf = (i: number) => i % 37;
  let turns = 0, timerRan = false, timerRanAtTurn = -1;
  setTimeout(() => {
    timerRan = true;
    timerRanAtTurn = turns;
  }, 0);
  const turned = await buildRollupTurning(b, visitorOf, async () => {
    turns++;
    await new Promise((r) => setTimeout(r, 0));
  });
  // rows (10,000) and the session segments each pause every 2,048
  assert.ok(turns >= 4, `${turns} turns`);
  assert.ok(
    timerRan && timerRanAtTurn >= 1 && timerRanAtTurn < turns,
    "a timer ran while the rollup was built",
  );
  assert.deepEqual(turned, buildRollup(b, visitorOf));
});
