/**
 * Explain-a-change's two periods, asked together as the tool asks them, are answered one after the other from
 * the first events (lib/query/rollup/explain_answers.ts oneAtATime): each holds its parts' first events
 * and arrays by visitor number outside the budget, so both at once doubled what the tool held. The answers
 * are those of asking one by one.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import type { Scope } from "../../../lib/query/api.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import { LAST7, PREV7 } from "../../tools/expect.ts";
import { harness } from "../../tools/harness.ts";

Deno.test("explain-a-change: a period and the previous one asked together are answered one at a time, as asked alone", async () => {
  const h = await harness({ visitors: 120 });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const scope = (p: { from: number; to: number }): Scope => ({
    org: h.t.org,
    env: "production",
    touchpoint: h.t.touchpoint,
    from: p.from,
    to: p.to,
    timezone: "UTC",
  });
  const asks: AttributionOptions[] = [
    { fields: ["channel", "page"], unit: "visitor" },
    { fields: ["source"], unit: "session" },
    { fields: ["channel"], unit: "visitor", goal: { event_type: "sign_up" } },
  ];
  for (const o of asks) {
    const alone = new RollupSource(h.deps, new Source(h.deps));
    const now = await alone.attribution(scope(LAST7), o);
    const before = await alone.attribution(scope(PREV7), o);
    assert.ok(now && before, "answered from the first events");
    const together = new RollupSource(h.deps, new Source(h.deps));
    const both = await Promise.all([
      together.attribution(scope(LAST7), o),
      together.attribution(scope(PREV7), o),
    ]);
    assert.deepEqual(both, [now, before], JSON.stringify(o));
    assert.equal(together.mostExplaining, 1);
  }
  h.close();
});
