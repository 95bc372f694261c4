/**
 * Hit rollups over a part's life: compaction writes one with each hit part (merged parts too) and deletes it
 * with the part; parts from before hit rollups get theirs from the backfill a few at a time (resumable), the
 * questions scanning their hours meanwhile, with the same answers; a compaction run of hits calls it.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillHitRollups } from "../../../lib/jobs/hit_rollup_backfill.ts";
import type { HitAggregateOptions, HitScope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { answerHits, type HitPath } from "../../../lib/query/hits.ts";
import { HitRollups } from "../../../lib/query/hit_rollup/source.ts";
import { type HitRollup, mergeHours } from "../../../lib/query/hit_rollup/build.ts";
import {
  deleteHitRollup,
  hasHitRollup,
  HIT_ROLLUP_VERSION,
  readHitRollup,
  writeHitRollup,
} from "../../../lib/query/hit_rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveHitsAggregate } from "../query/reference.ts";
import { hit, store } from "../query/fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const scope: HitScope = {
  org: "org1",
  env: "production",
  from: NOW - 10 * DAY,
  to: NOW,
  timezone: "Europe/Berlin",
  filters: [{ field: "verification", op: "neq", value: "spoofed" }],
};
const q: HitAggregateOptions = {
  metrics: ["requests", "crawled_requests", "pages", "last_crawl_at", "first_seen_at", "last_seen_at"],
  breakdown: ["crawler", "page"],
  bucket: "day",
};

const hitsOver = (days: number, tag: string) =>
  Array.from({ length: 240 }, (_, i) =>
    hit({
      id: `${tag}-${i}`,
      timestamp: NOW - (1 + (i % days)) * DAY + i * 61_000,
      crawler: i % 3 ? "GPTBot" : "Googlebot",
      path: `/p${i % 7}`,
      status: i % 11 ? 200 : 404,
      verification: i % 5 ? "verified" : "pending",
    }));

const rollupParts = async (deps: Awaited<ReturnType<typeof testDeps>>) => {
  const out: boolean[] = [];
  for (const p of await listParts(deps.kv, "org1", "production", "hit")) {
    out.push(await hasHitRollup(deps.kv, p.meta.id));
  }
  return out;
};

Deno.test("hit rollups: compaction writes them, merges give merged parts theirs, and deleted parts take them along", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const first = hitsOver(4, "a");
  await store(deps.kv, { hits: first });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  const before = await listParts(deps.kv, "org1", "production", "hit");
  assert.ok(before.length >= 4);
  assert.deepEqual(await rollupParts(deps), before.map(() => true));
  // late arrivals in the same days: new parts, then merges of each closed day's two parts
  const late = hitsOver(4, "b");
  await store(deps.kv, { hits: late });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  const after = await listParts(deps.kv, "org1", "production", "hit");
  assert.ok(after.some((p) => !before.some((b) => b.meta.id === p.meta.id)), "merged parts");
  assert.deepEqual(await rollupParts(deps), after.map(() => true));
  // the merged-away parts' rollups went with their chunks
  for (const b of before) {
    if (after.some((p) => p.meta.id === b.meta.id)) continue;
    assert.equal((await deps.kv.get(keys.hitRollup(b.meta.id))).value, null);
    const chunks = await Array.fromAsync(deps.kv.list({ prefix: keys.hitRollupChunks(b.meta.id) }));
    assert.equal(chunks.length, 0);
  }
  const path: HitPath = { rollups: 0, scannedRanges: [] };
  const got = await answerHits(new Source(deps), new HitRollups(deps.kv, 1 << 24), scope, q, path);
  assert.deepEqual(got, naiveHitsAggregate([...first, ...late], new Map(), scope, q));
  assert.equal(path.rollups, after.length);
  assert.deepEqual(path.scannedRanges, []);
  deps.kv.close();
});

Deno.test("hit rollup backfill: parts without one are scanned until the backfill, resumable, has reached them", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const hits = hitsOver(6, "a");
  await store(deps.kv, { hits });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "hit");
  assert.ok(parts.length >= 6);
  // as a deployment from before hit rollups left them
  for (const p of parts) await deleteHitRollup(deps.kv, p.meta.id);
  const want = naiveHitsAggregate(hits, new Map(), scope, q);
  const ask = async () => {
    const path: HitPath = { rollups: 0, scannedRanges: [] };
    const got = await answerHits(new Source(deps), new HitRollups(deps.kv, 1 << 24), scope, q, path);
    assert.deepEqual(got, want);
    return path;
  };
  assert.equal((await ask()).rollups, 0);

  assert.deepEqual(await backfillHitRollups(deps, "org1", "production", { maxParts: 2 }), {
    parts: 2,
    remaining: parts.length - 2,
    fromRollup: 0,
  });
  const half = await ask();
  assert.equal(half.rollups, 2);
  assert.ok(half.scannedRanges.length > 0);
  // a compaction run of hits continues the backfill
  const report = await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  assert.equal(report.rollups, parts.length - 2);
  assert.deepEqual(await rollupParts(deps), parts.map(() => true));
  const done = await ask();
  assert.equal(done.rollups, parts.length);
  assert.deepEqual(done.scannedRanges, []);
  assert.deepEqual(await backfillHitRollups(deps, "org1", "production"), {
    parts: 0,
    remaining: 0,
    fromRollup: 0,
  });
  deps.kv.close();
});

/** The stored rollup's hours-merged rows (version 2 on), in plain arrays, or null when it has none. */
const storedWhole = async (kv: Deno.Kv, partId: string) => {
  const got = await readHitRollup(kv, partId);
  assert.ok(got, `part ${partId} has a readable rollup`);
  return got.whole ? plain(got.whole) : null;
};
const plain = (r: HitRollup) => ({
  n: r.n,
  hours: r.hours,
  codes: r.codes.map((c) => Array.from(c)),
  hour: Array.from(r.hour),
  requests: Array.from(r.requests),
  minT: Array.from(r.minT),
  maxT: Array.from(r.maxT),
  pendRow: Array.from(r.pendRow),
  pendId: r.pendId,
});

Deno.test("hit rollup backfill: version 1 rollups (hourly rows only) become the current version from themselves, without reading their parts", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const hits = hitsOver(6, "a");
  await store(deps.kv, { hits });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "hit");
  assert.ok(parts.length >= 6);
  // compaction stores the merged rows, equal to merging the hourly rows
  for (const p of parts) {
    const got = await readHitRollup(deps.kv, p.meta.id);
    assert.equal(got?.v, HIT_ROLLUP_VERSION);
    assert.deepEqual(await storedWhole(deps.kv, p.meta.id), plain(mergeHours(got!.r)));
  }
  // as a deployment with version 1 left them: the same hourly rows, no merged ones
  const hourly = new Map<string, HitRollup>();
  for (const p of parts) {
    hourly.set(p.meta.id, (await readHitRollup(deps.kv, p.meta.id))!.r);
    await deleteHitRollup(deps.kv, p.meta.id);
    await writeHitRollup(deps.kv, p.meta.id, hourly.get(p.meta.id)!, null);
    assert.equal(await storedWhole(deps.kv, p.meta.id), null);
  }
  assert.deepEqual(await rollupParts(deps), parts.map(() => false));
  const want = naiveHitsAggregate(hits, new Map(), scope, q);
  const ask = async () => {
    const path: HitPath = { rollups: 0, scannedRanges: [] };
    const got = await answerHits(new Source(deps), new HitRollups(deps.kv, 1 << 24), scope, q, path);
    assert.deepEqual(got, want);
    return path;
  };
  // version 1 is still read (its hours merged when decoded)
  assert.equal((await ask()).rollups, parts.length);

  // the backfill may not read a part: its chunks are refused
  const partReads: unknown[] = [];
  const kv = new Proxy(deps.kv, {
    get(target, name) {
      if (name === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          if ("prefix" in sel && sel.prefix[0] === keys.partChunks("x")[0]) partReads.push(sel.prefix);
          return target.list(sel, o);
        };
      }
      const v = Reflect.get(target, name);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  assert.deepEqual(await backfillHitRollups({ ...deps, kv }, "org1", "production", { maxParts: 2 }), {
    parts: 2,
    remaining: parts.length - 2,
    fromRollup: 2,
  });
  assert.equal((await ask()).rollups, parts.length);
  assert.deepEqual(await backfillHitRollups({ ...deps, kv }, "org1", "production"), {
    parts: parts.length - 2,
    remaining: 0,
    fromRollup: parts.length - 2,
  });
  assert.deepEqual(partReads, []);
  assert.deepEqual(await rollupParts(deps), parts.map(() => true));
  // the stored merged rows are the hourly rows' merge, and the hourly rows are unchanged
  for (const p of parts) {
    const got = await readHitRollup(deps.kv, p.meta.id);
    assert.equal(got?.v, HIT_ROLLUP_VERSION);
    assert.deepEqual(plain(got!.r), plain(hourly.get(p.meta.id)!));
    assert.deepEqual(await storedWhole(deps.kv, p.meta.id), plain(mergeHours(hourly.get(p.meta.id)!)));
  }
  // no chunk of an older blob is left over (a reader would refuse the rollup)
  for (const p of parts) {
    const entry = (await deps.kv.get<{ chunks: number }>(keys.hitRollup(p.meta.id))).value!;
    const chunks = await Array.fromAsync(deps.kv.list({ prefix: keys.hitRollupChunks(p.meta.id) }));
    assert.equal(chunks.length, entry.chunks);
  }
  const done = await ask();
  assert.equal(done.rollups, parts.length);
  assert.deepEqual(done.scannedRanges, []);
  deps.kv.close();
});

Deno.test("hit rollups: a question reads the stored merged rows, not a merge of the hourly ones", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  const hits = hitsOver(4, "a");
  await store(deps.kv, { hits });
  await compact(deps, "org1", "production", "hit", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "hit");
  // a stored merged-rows section that differs from the hourly rows (one more request in its first row)
  for (const p of parts) {
    const { r } = (await readHitRollup(deps.kv, p.meta.id))!;
    const whole = mergeHours(r);
    whole.requests[0]++;
    await deleteHitRollup(deps.kv, p.meta.id);
    await writeHitRollup(deps.kv, p.meta.id, r, whole);
  }
  const whole: HitAggregateOptions = { metrics: ["requests"], breakdown: ["crawler"] };
  const got = await answerHits(new Source(deps), new HitRollups(deps.kv, 1 << 24), scope, whole);
  const want = naiveHitsAggregate(hits, new Map(), scope, whole);
  assert.equal(got.totals.requests, (want.totals.requests as number) + parts.length);
  deps.kv.close();
});
