/**
 * Questions over the same parts whose window ends later (each question's "now" moves on): what is kept per
 * scope is shared only where the parts hold no row in between, and a bucketed breakdown gets the buckets of
 * its own window (a new day after midnight), always as the reference computes them.
 */
import assert from "node:assert/strict";
import { type AggregateOptions, createEngine, type Scope } from "../../../lib/query/api.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";
import { naiveAggregate } from "./reference.ts";

const HOUR = 3_600_000;
const NOW = Date.parse("2026-11-03T12:00:00Z");

Deno.test("later now: a window reaching further over the same parts counts the rows it reaches, buckets its own days", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    const events = [
      ev({ received_at: NOW - 30 * HOUR, anonymous_id: "a", session_id: "a1" }),
      ev({ received_at: NOW - 14 * HOUR, anonymous_id: "b", session_id: "b1", path: "/pricing" }),
      ev({ received_at: NOW - 5 * HOUR, anonymous_id: "c", session_id: "c1" }),
      ev({ received_at: NOW - HOUR, anonymous_id: "d", session_id: "d1", path: "/pricing" }),
    ].map((e) => ({
      ...e,
      geo: { country: e.anonymous_id < "c" ? "DE" : "FR", city: null, asn: null, as_org: null },
    }));
    await store(deps.kv, { events });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const engine = createEngine(deps);
    const from = Date.parse("2026-11-01T00:00:00Z");
    const asks: AggregateOptions[] = [
      { metrics: ["visitors", "sessions", "pageviews", "bounce_rate"] },
      { metrics: ["visitors", "pageviews"], breakdown: ["page"] },
      { metrics: ["visitors", "events"], bucket: "day" },
      { metrics: ["visitors"], bucket: "day", breakdown: ["country"] },
      { metrics: ["visitors"], bucket: "hour", breakdown: ["country", "page"] },
    ];
    // ends before d, then after every row: a second later, hours later, before and after midnight (the
    // parts hold no row in between, but the hours and the day are new)
    const ends = [NOW - 3 * HOUR, NOW + 1, NOW + 1_001, NOW + 2 * HOUR, NOW + 11 * HOUR, NOW + 13 * HOUR];
    for (const to of ends) {
      const scope: Scope = { org: "org1", env: "production", from, to, timezone: "UTC" };
      const got = await engine.aggregateMany(scope, asks);
      assert.deepEqual(got, asks.map((o) => naiveAggregate(events, scope, o)), new Date(to).toISOString());
    }
    const visitorsUntil = async (to: number) =>
      (await engine.aggregate({ org: "org1", env: "production", from, to, timezone: "UTC" }, {
        metrics: ["visitors"],
      })).totals.visitors;
    assert.deepEqual(
      [
        await visitorsUntil(NOW - 3 * HOUR),
        await visitorsUntil(NOW + 1),
        await visitorsUntil(NOW - 3 * HOUR),
      ],
      [3, 4, 3],
    );
  } finally {
    deps.kv.close();
  }
});
