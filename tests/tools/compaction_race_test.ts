/**
 * A question answered while compaction folds the raw tail into parts counts every event once. The loads of
 * one question shared a raw-tail read; one that began before another load listed the parts could hold the raw
 * rows of a part that listing already showed as done, so those rows were counted twice (crawler requests
 * doubled, the previous period's pageviews 55 instead of 40).
 */
import assert from "node:assert/strict";
import { compact } from "../../lib/jobs/compact.ts";
import { harness } from "./harness.ts";

Deno.test("compaction during questions: the overview and crawl coverage answer as after it, every time", async () => {
  for (let round = 0; round < 10; round++) {
    const h = await harness({ seed: 100 + round });
    const folding = Promise.all([
      compact(h.deps, h.t.org, "production", "ev"),
      compact(h.deps, h.t.org, "production", "hit"),
    ]);
    const during = await Promise.all([
      h.ask("behavior_overview", {}),
      h.ask("behavior_crawl_coverage", {}),
    ]);
    await folding;
    const after = await Promise.all([
      h.ask("behavior_overview", {}),
      h.ask("behavior_crawl_coverage", {}),
    ]);
    assert.deepEqual(during, after, `round ${round}`);
    h.close();
  }
});
