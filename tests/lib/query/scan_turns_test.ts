/**
 * A question over a large raw tail shares the event loop: the aggregate pass and the value series give the
 * loop turns every few thousand rows (a timer set before the question fires before its answer), and the
 * answers are those of the same pass run without turns.
 */
import assert from "node:assert/strict";
import { aggregateMany } from "../../../lib/query/aggregate/aggregate.ts";
import { valueSeries } from "../../../lib/query/aggregate/value_series.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/types.ts";
import { noTurns, type Turn, turns } from "../../../lib/turns.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const ROWS = 20_000;

/** A turn that always yields (budget 0) and counts how often it did, and whether the timer had fired. */
function counted(timer: { fired: boolean }) {
  const yields = turns(0);
  const seen = { turns: 0, firedBeforeEnd: false };
  const turn: Turn = async () => {
    seen.turns++;
    await yields();
    if (timer.fired) seen.firedBeforeEnd = true;
  };
  return { turn, seen };
}

Deno.test("scan turns: a pass over a 20,000-row raw tail lets a timer fire before it answers, with the same answers", async () => {
  const deps = await testDeps();
  try {
    const pages = ["/", "/pricing", "/docs", "/blog"];
    await store(deps.kv, {
      events: Array.from({ length: ROWS }, (_, i) =>
        ev({
          received_at: T0 + i * 1_000,
          anonymous_id: `v${i % 700}`,
          session_id: `s${i % 1_500}`,
          event_type: i % 5 === 0 ? "web_vital" : "$pageview",
          path: pages[i % pages.length],
          properties: i % 5 === 0 ? { metric: i % 2 ? "LCP" : "INP", value: (i % 97) * 10 } : {},
        })),
    });
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: T0 - 1,
      to: T0 + ROWS * 1_000,
      timezone: "UTC",
    };
    const scans = new ScanContexts(new Source(deps));
    const ctx = await scans.of(scope);
    assert.equal(ctx.batches.reduce((n, b) => n + b.n, 0), ROWS, "every event is in the raw tail");
    const asks: AggregateOptions[] = [
      { metrics: ["events", "visitors", "sessions", "bounce_rate"] }, // the totals loop
      { metrics: ["events", "sessions"], breakdown: ["page"] }, // the full loop
      { metrics: ["events", "visitors"], breakdown: ["page"] }, // the lean loop
    ];
    const want = await aggregateMany(ctx, asks, noTurns);
    assert.equal(want[0].totals.events, ROWS);

    const timer = { fired: false };
    setTimeout(() => timer.fired = true, 0);
    const { turn, seen } = counted(timer);
    assert.deepEqual(await aggregateMany(ctx, asks, turn), want);
    assert.ok(seen.firedBeforeEnd, "the timer fired while the pass ran");
    assert.ok(
      seen.turns >= 3 * Math.floor(ROWS / 4_096),
      `turns every few thousand rows in each loop (${seen.turns})`,
    );

    const series = { by: "page" as const, series: "metric", value: "value" };
    const wantSeries = await valueSeries(ctx, series, noTurns);
    const timer2 = { fired: false };
    setTimeout(() => timer2.fired = true, 0);
    const second = counted(timer2);
    assert.deepEqual(await valueSeries(ctx, series, second.turn), wantSeries);
    assert.ok(second.seen.firedBeforeEnd, "the timer fired while the series ran");
    assert.ok(
      second.seen.turns >= Math.floor(ROWS / 4_096),
      `turns every few thousand rows (${second.seen.turns})`,
    );
  } finally {
    await deps.kv.close();
  }
});
