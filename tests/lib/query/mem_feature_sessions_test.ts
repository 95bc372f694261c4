/**
 * Feature tables count a session once in a group when it changes a form's field in several hours and in
 * several parts (the distinct-session set of lib/query/feature_rollup/answer.ts), as the scan does.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { featureAnswers } from "../../../lib/query/feature_rollup/planner.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");
const HOUR = 3_600_000;

Deno.test("feature tables: a session changing a field in two hours of two parts counts once, as the scan counts it", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  let i = 0;
  const change = (at: number, visitor: string, session: string) =>
    ev({
      id: `e${i++}`,
      received_at: at,
      anonymous_id: visitor,
      session_id: session,
      event_type: "$autocapture",
      element: "Email",
      path: "/signup",
      properties: { action: "change", form_element: "Sign up form" },
    });
  // session s1 in hours 0 and 1 of the first part and hour 3 of the second; s2 once; s3 of visitor a too
  const t0 = NOW - 10 * HOUR;
  await store(deps.kv, {
    events: [
      change(t0, "a", "s1"),
      change(t0 + HOUR, "a", "s1"),
      change(t0 + HOUR + 60_000, "b", "s2"),
      change(t0 + HOUR + 120_000, "a", "s3"),
    ],
  });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await store(deps.kv, { events: [change(t0 + 3 * HOUR, "a", "s1"), change(t0 + 3 * HOUR + 1, "b", "s2")] });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const planner = featureAnswers(deps, new Source(deps), 1 << 20);
  const engine = createEngine(deps); // the scan: a small site fits the cache
  const scope = (from: number): Scope => ({
    org: "org1",
    env: "production",
    from,
    to: NOW,
    timezone: "UTC",
    filters: [{ field: "event_type", op: "eq", value: "$autocapture" }, {
      field: "prop:action",
      op: "eq",
      value: "change",
    }],
  });
  const o: AggregateOptions = { metrics: ["sessions", "visitors"], breakdown: ["prop:form_element", "page"] };
  // the whole parts (merged rows), then a period from the second hour (the first part's hourly rows)
  for (const from of [NOW - 86_400_000, t0 + HOUR]) {
    const got = await planner.aggregate(scope(from), [o]);
    const want = await engine.aggregateMany(scope(from), [o]);
    assert.deepEqual(got, want);
    assert.equal(got![0].totals.sessions, 3);
    assert.equal(got![0].rows[0].metrics.sessions, 3);
  }
  deps.kv.close();
});

Deno.test("feature tables: 700 sessions (the set grows past its first size) each counted once across two parts", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const t0 = NOW - 10 * HOUR;
  const change = (i: number, k: number) =>
    ev({
      id: `e${i}-${k}`,
      received_at: t0 + k * 2 * HOUR + i,
      anonymous_id: `v${i % 350}`,
      session_id: `s${i}`,
      event_type: "$autocapture",
      element: "Email",
      path: "/signup",
      properties: { action: "change", form_element: "Sign up form" },
    });
  const ids = Array.from({ length: 700 }, (_, i) => i);
  await store(deps.kv, { events: ids.map((i) => change(i, 0)) });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  await store(deps.kv, { events: ids.map((i) => change(i, 1)) });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const planner = featureAnswers(deps, new Source(deps), 1 << 22);
  const s: Scope = {
    org: "org1",
    env: "production",
    from: NOW - 86_400_000,
    to: NOW,
    timezone: "UTC",
    filters: [{ field: "event_type", op: "eq", value: "$autocapture" }, {
      field: "prop:action",
      op: "eq",
      value: "change",
    }],
  };
  const o: AggregateOptions = { metrics: ["sessions", "visitors"], breakdown: ["prop:form_element", "page"] };
  const got = await planner.aggregate(s, [o]);
  assert.deepEqual(got, await createEngine(deps).aggregateMany(s, [o]));
  assert.equal(got![0].totals.sessions, 700);
  assert.equal(got![0].rows[0].metrics.visitors, 350);
  deps.kv.close();
});
