// A hit rollup written again (a second backfill run, a repair) after an engine kept its head: a period cutting
// the part reads the hourly rows by the kept head's stamp, finds them gone, and must read the new head when
// it starts over instead of failing every retry with the stale one.
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { answerHits } from "../../../lib/query/hits.ts";
import { HitRollups } from "../../../lib/query/hit_rollup/source.ts";
import { readHitRollup, writeHitRollup } from "../../../lib/query/hit_rollup/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { hit, store } from "./fixtures.ts";

const HOUR = 3_600_000, MIN = 60_000, NOW = Date.parse("2026-11-20T12:00:00Z");

Deno.test("hit rollups: a rollup rewritten after its head was kept is read anew, not failed on", async () => {
  const deps = await testDeps();
  try {
    deps.clock.set(NOW);
    const t0 = NOW - 10 * HOUR;
    // 40 hits, one every 12 minutes over 8 hours
    const hits = Array.from(
      { length: 40 },
      (_, i) =>
        hit({ timestamp: t0 + i * 12 * MIN, received_at: t0 + i * 12 * MIN, crawler: "GPTBot", path: "/" }),
    );
    await store(deps.kv, { hits });
    await compact(deps, "org1", "production", "hit", { graceMs: 0 });
    const parts = await listParts(deps.kv, "org1", "production", "hit");
    assert.equal(parts.length, 1);
    const source = new Source(deps), rollups = new HitRollups(deps.kv, 1 << 24);
    const scope = { org: "org1", env: "production" as const, from: t0 - HOUR, to: NOW, timezone: "UTC" };
    const opts = { metrics: ["requests" as const] };
    assert.equal((await answerHits(source, rollups, scope, opts)).totals.requests, 40);
    // the same rollup written again: a new versionstamp under the same part id
    const id = parts[0].meta.id;
    const old = await readHitRollup(deps.kv, id);
    assert.ok(old);
    await writeHitRollup(deps.kv, id, old.r);
    // periods cutting the part's hours (its hourly rows are read, by the kept head's stamp first)
    for (const [from, want] of [[t0 + 4 * HOUR, 20], [t0 + 4 * HOUR + MIN, 19]] as const) {
      const got = await answerHits(source, rollups, { ...scope, from }, opts);
      assert.equal(got.totals.requests, want);
    }
  } finally {
    deps.kv.close();
  }
});
