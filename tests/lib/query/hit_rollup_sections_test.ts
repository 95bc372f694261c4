/**
 * Version 3 hit rollups keep the merged rows and hour ranges (the head) apart from the hourly rows: a question
 * taking its parts whole reads the heads only; one that splits a part by hour (a bucket, or a period cutting
 * it) reads that part's hourly rows too. Answers equal the reference either way.
 */
import assert from "node:assert/strict";
import type { HitAggregateOptions, HitScope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { answerHits, type HitPath } from "../../../lib/query/hits.ts";
import { HitRollups } from "../../../lib/query/hit_rollup/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { HitRollupEntry } from "../../../lib/query/hit_rollup/store.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveHitsAggregate } from "./reference.ts";
import { hit, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000, HOUR = 3_600_000;
const START = Date.parse("2026-11-16T00:00:00Z");

Deno.test("hit rollup sections: whole parts are read without their hourly rows, split ones with them", async () => {
  const deps = await testDeps();
  try {
    deps.clock.set(NOW);
    const hits = Array.from({ length: 120 }, (_, i) =>
      hit({
        id: `s-${i}`,
        timestamp: START + i * 37 * 60_000,
        received_at: START + i * 37 * 60_000,
        path: ["/", "/a", "/b"][i % 3],
        crawler: i % 2 ? "GPTBot" : "ClaudeBot",
        verification: i % 5 ? "verified" : "pending",
      }));
    await store(deps.kv, { hits });
    await compact(deps, "org1", "production", "hit", { graceMs: 0 });
    const parts = await listParts(deps.kv, "org1", "production", "hit");
    assert.ok(parts.length >= 3);
    let heads = 0;
    for (const p of parts) {
      const e = (await deps.kv.get<HitRollupEntry>(keys.hitRollup(p.meta.id))).value!;
      assert.equal(e.v, 3);
      heads += e.head!.bytes;
    }
    const source = new Source(deps);
    const rollups = new HitRollups(deps.kv, 1 << 24);
    const scope: HitScope = {
      org: "org1",
      env: "production",
      from: START,
      to: START + 4 * DAY,
      timezone: "UTC",
      filters: [{ field: "verification", op: "neq", value: "spoofed" }],
    };
    const opts: HitAggregateOptions = {
      metrics: ["requests", "pages", "last_crawl_at"],
      breakdown: ["crawler"],
    };
    const path: HitPath = { rollups: 0, scannedRanges: [] };
    assert.deepEqual(
      await answerHits(source, rollups, scope, opts, path),
      naiveHitsAggregate(hits, new Map(), scope, opts),
    );
    assert.equal(path.rollups, parts.length);
    assert.equal(rollups.bytesRead, heads, "the heads only");
    assert.equal(rollups.hours.size, 0);
    // by hour: every part is split, its hourly rows read
    const hourly = { ...opts, bucket: "hour" as const };
    assert.deepEqual(
      await answerHits(source, rollups, scope, hourly),
      naiveHitsAggregate(hits, new Map(), scope, hourly),
    );
    assert.equal(rollups.hours.size, parts.length);
    assert.ok(rollups.bytesRead > heads);
    // a period cutting the first day at 06:00 (no hit then: hours on both sides taken from the hourly rows)
    const cut = { ...scope, from: START + 6 * HOUR };
    assert.deepEqual(
      await answerHits(source, rollups, cut, opts),
      naiveHitsAggregate(hits, new Map(), cut, opts),
    );
  } finally {
    deps.kv.close();
  }
});
