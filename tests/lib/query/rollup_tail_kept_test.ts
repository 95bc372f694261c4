/**
 * The raw tail's rollup on the rollup path: built once while the tail's records and the visitor count stay the
 * same (a question over an unchanged tail reuses it; a new record builds it again), answers equal to the
 * reference either way, and a large tail's build gives the event loop turns (counted, not timed).
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { buildRollup, buildRollupTurning } from "../../../lib/query/rollup/build.ts";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const HOUR = 3_600_000;

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
  const deps = await testDeps();
  deps.clock.set(NOW);
  const parts = events(40, (i) => NOW - 3 * 24 * HOUR + i * 60_000);
  await store(deps.kv, { events: parts });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const tail = events(30, (i) => NOW - 5 * HOUR + i * 90_000);
  await store(deps.kv, { events: tail });
  const rollups = new RollupSource(deps, new Source(deps));
  const check = async (all: StoredEvent[], from: number) => {
    const got = await rollups.answer(scope(from), questions);
    questions.forEach((o, i) => {
      assert.ok(got[i], "answered from rollups");
      assert.deepEqual(got[i], naiveAggregate(all, scope(from), o));
    });
  };
  await check([...parts, ...tail], NOW - 7 * 24 * HOUR);
  // another period over the same tail: its hours taken from the kept rollup
  await check([...parts, ...tail], NOW - 3 * HOUR);
  await check([...parts, ...tail], NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 1);
  const more = events(3, (i) => NOW - HOUR + i * 1000).map((e) => ({ ...e, anonymous_id: "new-visitor" }));
  await store(deps.kv, { events: more });
  await check([...parts, ...tail, ...more], NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 2);
  await check([...parts, ...tail, ...more], NOW - 7 * 24 * HOUR);
  assert.equal(rollups.tailBuilds, 2);
  deps.kv.close();
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
