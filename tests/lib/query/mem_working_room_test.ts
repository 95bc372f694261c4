/**
 * What questions hold while they answer is counted in the scan's budget (lib/working_memory.ts): decoded parts
 * the budget keeps make room for it, so the two together stay within PART_CACHE_MB; once the question ended,
 * nothing of it is counted.
 */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { hold } from "../../../lib/working_memory.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

Deno.test("working memory: kept parts make room for what a question holds, within the one budget", async () => {
  const deps = await testDeps();
  try {
    const t0 = Date.parse("2026-11-19T10:00:00Z");
    await store(deps.kv, {
      events: Array.from(
        { length: 300 },
        (_, i) => ev({ received_at: t0 + i * 60_000, anonymous_id: `v${i % 40}` }),
      ),
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const probe = new Source(deps);
    await probe.events("org1", "production", t0, t0 + 86_400_000);
    const part = probe.cacheBytes;
    assert.ok(part > 0);
    // a budget of four parts: one kept, then a question holding three and a half
    const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes: 4 * part } });
    await source.events("org1", "production", t0, t0 + 86_400_000);
    assert.equal(source.cacheBytes, part, "the part is kept");
    await source.working.run(() => {
      hold([new Uint8Array(Math.floor(3.5 * part))]);
      assert.equal(source.cacheBytes, 0, "the kept part made room");
      assert.ok(source.heldBytes <= 4 * part, `${source.heldBytes} within ${4 * part}`);
      return Promise.resolve();
    });
    assert.equal(source.working.total, 0);
    // the next question finds the room again: the part is kept once more
    await source.events("org1", "production", t0, t0 + 86_400_000);
    assert.equal(source.cacheBytes, part);
  } finally {
    deps.kv.close();
  }
});
