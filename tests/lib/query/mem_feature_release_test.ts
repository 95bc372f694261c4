/**
 * behavior_features lets go of what a question decoded and made for itself (feature_rollup/planner.ts
 * `letGo`, answer.ts GroupCollector `finish`): a part's table the cache did not keep, once no question
 * holds it, is detached when added (at 10M events a cold question decoded ~50 MB of tables the features'
 * share cannot keep, left dead for V8's next full collection), a table the cache keeps is not, and
 * questions asked at once over the same tables (each holding them until added) answer as asked alone.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { featureAnswers, FeatureRollups } from "../../../lib/query/feature_rollup/planner.ts";
import type { FeatureTable } from "../../../lib/query/feature_rollup/build.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-10-30T12:00:00Z");
const HOUR = 3_600_000;
type Reads = { table: (...a: unknown[]) => Promise<FeatureTable> };

Deno.test("feature tables: those the cache does not keep are detached once added, the answers unchanged", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  for (let p = 0; p < 6; p++) {
    const at = NOW - (6 - p) * 3 * HOUR;
    const events = [];
    for (let v = 0; v < 80; v++) {
      for (const [k, action] of (["click", "change"] as const).entries()) {
        events.push(ev({
          id: `e${p}-${v}-${k}`,
          received_at: at + v * 1_000 + k,
          anonymous_id: `v${v}`,
          session_id: `s${v}`,
          event_type: "$autocapture",
          element: v % 3 ? "Buy" : "Email",
          path: v % 2 ? "/p" : "/q",
          properties: { action, form_element: "Order" },
        }));
      }
    }
    await store(deps.kv, { events });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  }
  const scope: Scope = {
    org: "org1",
    env: "production",
    from: NOW - 2 * 86_400_000,
    to: NOW,
    timezone: "UTC",
    filters: [
      { field: "event_type", op: "eq", value: "$autocapture" },
      { field: "prop:action", op: "eq", value: "change" },
    ],
  };
  const asks: AggregateOptions[] = [
    { metrics: ["events", "visitors"], breakdown: ["element", "page"] },
    { metrics: ["sessions", "visitors"], breakdown: ["prop:form_element", "page"] },
  ];
  const proto = FeatureRollups.prototype as unknown as Reads;
  const read = proto.table;
  const seen: FeatureTable[] = [];
  proto.table = async function (this: unknown, ...a: unknown[]) {
    const t = await read.apply(this, a);
    seen.push(t);
    return t;
  };
  const detached = (t: FeatureTable) => (t.hour.buffer as ArrayBuffer).detached;
  try {
    // a roomy cache keeps them: nothing freed, the reference answers
    const roomy = featureAnswers(deps, new Source(deps), 64 << 20, 2);
    const want = [];
    for (const o of asks) want.push((await roomy.aggregate(scope, [o]))![0]);
    assert.ok(seen.length >= 6);
    assert.ok(seen.every((t) => !detached(t)), "kept tables are left whole");
    // no room: each table freed once added, answers the same, asked one by one and at once
    seen.length = 0;
    const tight = featureAnswers(deps, new Source(deps), 1, 2);
    for (const [k, o] of asks.entries()) assert.deepEqual((await tight.aggregate(scope, [o]))![0], want[k]);
    assert.ok(seen.length >= 6);
    assert.ok(seen.every(detached), "tables not kept are detached");
    const atOnce = featureAnswers(deps, new Source(deps), 1, 2);
    const both = await Promise.all(asks.map((o) => atOnce.aggregate(scope, [o])));
    assert.deepEqual(both.map((b) => b![0]), want);
  } finally {
    proto.table = read;
    deps.kv.close();
  }
});
