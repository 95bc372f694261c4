/**
 * Sources from runs let go what they read and made for a question (sources_from_runs.ts answer /
 * buildRuns, attribution_period.ts answerRuns): without a raw tail the parts' keys, read only to take the
 * runs and join the rest, are detached once the period is built (~9 bytes a session: ~15 MB a cold
 * behavior_sources at 10M events, with the decoded runs beside), and a batch's questions share one set of
 * marks by visitor number instead of one each (~4 MB a question at 10M). The answers are those of each
 * question asked alone.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { SourcesFromRuns } from "../../../lib/query/rollup/sources_from_runs.ts";
import { runsAnswered } from "../../../lib/query/rollup/attribution_period.ts";
import type { PartKeys } from "../../../lib/query/rollup/spans.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { LAST7 } from "../../tools/expect.ts";
import { harness } from "../../tools/harness.ts";

type Builds = { buildRuns: (...a: unknown[]) => Promise<{ places: { keys: PartKeys[] } }> };
const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;

Deno.test("sources from runs: the parts' keys are detached once the period is built, and a batch shares its marks", async () => {
  const h = await harness({ visitors: 150 });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const scope: Scope = {
    org: h.t.org,
    env: "production",
    touchpoint: h.t.touchpoint,
    from: LAST7.from - 14 * 86_400_000,
    to: LAST7.to,
    timezone: "UTC",
  };
  const asks: AggregateOptions[] = [
    { metrics: ["sessions", "visitors"], breakdown: ["source"] },
    { metrics: ["visitors", "conversions"], breakdown: ["channel"], goal: { event_type: "sign_up" } },
    { metrics: ["sessions", "visitors"], breakdown: ["entry_page"] },
    {
      metrics: ["sessions", "visitors", "conversions"],
      breakdown: ["source", "entry_page"],
      goal: { event_type: "purchase" },
    },
  ];
  const proto = SourcesFromRuns.prototype as unknown as Builds;
  const build = proto.buildRuns;
  const keys: PartKeys[] = [];
  proto.buildRuns = async function (this: unknown, ...a: unknown[]) {
    const got = await build.apply(this, a);
    keys.push(...got.places.keys);
    return got;
  };
  try {
    const alone = [];
    for (const o of asks) {
      const [a] = await new RollupSource(h.deps, new Source(h.deps)).answer(scope, [o]);
      assert.ok(a, JSON.stringify(o));
      alone.push(a);
    }
    keys.length = 0;
    const before = runsAnswered.count;
    const together = await new RollupSource(h.deps, new Source(h.deps)).answer(scope, asks);
    assert.equal(runsAnswered.count - before, asks.length, "answered from runs");
    assert.deepEqual(together, alone);
    assert.ok(keys.some((k) => k.n > 0), "keys were read");
    for (const k of keys) if (k.n) assert.equal(detached(k.vis), true);
  } finally {
    proto.buildRuns = build;
    h.close();
  }
});
