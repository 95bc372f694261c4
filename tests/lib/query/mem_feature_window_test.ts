/**
 * behavior_features' tables are counted a window of parts at a time (lib/query/feature_rollup/planner.ts,
 * answer.ts GroupCollector): a period's tables are never all decoded at once (at 10M events all 214 parts'
 * tables together raised the peak 60-95 MB), and a visitor or session met in several windows, and many
 * times in one group (its list sorted and deduped as it fills), still counts once, as the scan counts it.
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

Deno.test("feature tables: six parts read two at a time give the scan's answers; visitors and sessions of several parts count once", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const PARTS = 6;
  for (let p = 0; p < PARTS; p++) {
    const at = NOW - (PARTS - p) * 3 * HOUR;
    const events = [];
    // 120 visitors each part (the same ones: every window meets them again), two clicks and a change each
    for (let v = 0; v < 120; v++) {
      for (const [k, action] of (["click", "click", "change"] as const).entries()) {
        events.push(ev({
          id: `e${p}-${v}-${k}`,
          received_at: at + v * 1_000 + k,
          anonymous_id: `v${v}`,
          session_id: `s${v}`, // a session spans every part
          event_type: "$autocapture",
          element: v % 3 ? "Buy" : "Email",
          path: v % 2 ? "/p" : "/q",
          properties: { action, form_element: "Order", rage_click: v % 7 === 0 },
        }));
      }
    }
    await store(deps.kv, { events });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  }
  const planner = featureAnswers(deps, new Source(deps), 1 << 20, 2);
  const engine = createEngine(deps); // the scan: a small site fits the cache
  const scope = (action: string): Scope => ({
    org: "org1",
    env: "production",
    from: NOW - 2 * 86_400_000,
    to: NOW,
    timezone: "UTC",
    filters: [{ field: "event_type", op: "eq", value: "$autocapture" }, {
      field: "prop:action",
      op: "eq",
      value: action,
    }],
  });
  const asks: [string, AggregateOptions][] = [
    ["click", { metrics: ["events", "visitors", "rage_clicks"], breakdown: ["element", "page"] }],
    ["click", { metrics: ["visitors"] }],
    ["change", { metrics: ["sessions", "visitors"], breakdown: ["prop:form_element", "page"] }],
  ];
  for (const [action, o] of asks) {
    const got = await planner.aggregate(scope(action), [o]);
    assert.deepEqual(got, await engine.aggregateMany(scope(action), [o]), JSON.stringify(o));
    assert.ok(planner.last.tables >= 4, `${planner.last.tables} parts from their tables`);
    assert.ok(planner.heldAtOnce <= 2, `${planner.heldAtOnce} tables decoded at once`);
    assert.equal(got![0].totals.visitors, 120);
  }
  const sessions = await planner.aggregate(scope("change"), [asks[2][1]]);
  assert.equal(sessions![0].totals.sessions, 120);
  deps.kv.close();
});
