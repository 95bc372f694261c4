/**
 * A version-10 rollup (no reporters on its page and totals rows) gets them from the backfill: those fields'
 * rows and sets (hourly and wide) made again from the part, the rest left as written. Until then the rollups
 * answer with no reporters (a lower bound); after it, equal to the reference.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { PIECE_FIELDS } from "../../../lib/query/rollup/pieces.ts";
import { keepsReporters } from "../../../lib/query/rollup/reporters.ts";
import {
  decodeRows,
  encodeRows,
  readSection,
  readSections,
  readStamps,
  REPORTER_SECS,
  type RollupEntry,
  rowsSec,
  wideRowsSec,
} from "../../../lib/query/rollup/store.ts";
import { CHUNK_BYTES } from "../../../lib/parts/store.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { keys } from "../../../lib/store/keys.ts";
import {
  asOlderVersion,
  assertSectionsKept,
  backfillAll,
  DAY,
  expected,
  midnightSessions,
  openSite,
  severalParts,
  type Site,
} from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

/**
 * Rewrites a part's page and totals rows (hourly and wide) as version 10 wrote them: without reporters. Gives
 * how many of those sections had some.
 */
async function withoutReporters(site: Site, id: string): Promise<number> {
  let had = 0;
  const entry = await site.entry(id);
  const secs = { ...entry.secs };
  for (const f of PIECE_FIELDS.filter(keepsReporters)) {
    for (const sec of [rowsSec(f), wideRowsSec(f)]) {
      const stored = await readSection(site.kv, id, entry, sec);
      if (!stored) continue;
      const rows = decodeRows(stored, entry.head, f);
      if (rows.rep.length) had++;
      const bytes = encodeRows({ ...rows, repAt: new Uint32Array(0), rep: new Uint32Array(0) });
      for (let j = 0; j < entry.secs[sec][1]; j++) {
        await site.kv.delete(keys.rollupChunk(id, sec * 10_000 + j));
      }
      const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
      for (let j = 0; j < chunks; j++) {
        await site.kv.set(
          keys.rollupChunk(id, sec * 10_000 + j),
          bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES),
        );
      }
      secs[sec] = [bytes.length, chunks];
    }
  }
  await site.kv.set(keys.rollup(id), { ...entry, secs });
  return had;
}

Deno.test("rollup backfill: a version-10 rollup gets its page and totals rows' reporters from the part, the rest kept", async () => {
  const site = await openSite(NOW, { file: true });
  // sessions crossing midnight UTC (each in two parts); page leaves from some visitors, some without a depth
  await site.add(midnightSessions(Date.parse("2026-11-20T00:00:00Z"), 400, 900_000, (i) =>
    i % 5 === 1
      ? {
        event_type: "$pageleave",
        properties: { engagement_time_ms: 1000 * (i % 13), ...(i % 3 ? { depth_percent: i % 100 } : {}) },
      }
      : {}));
  await site.compact();
  const parts = await severalParts(site);
  let had = 0;
  for (const p of parts) had += await withoutReporters(site, p.meta.id);
  assert.ok(had > 0, "compaction writes reporters");
  const written = await asOlderVersion(site, parts, 10, []);
  const asks: AggregateOptions[] = [
    {
      metrics: ["pageviews", "viewers", "engagement_time_s", "scroll_depth_percent", "reporters"],
      breakdown: ["page"],
    },
    { metrics: ["engagement_time_s", "reporters"] },
    { metrics: ["reporters", "visitors"], breakdown: ["page"], bucket: "day" },
  ];
  // version 10: the rollups still answer (no scan of the period after an upgrade), exact but for the
  // reporters, which read none (a lower bound: the means they guard are withheld until the backfill)
  const live = site.rollups();
  const before = await live.answer(scope, asks);
  asks.forEach((o, k) => {
    const want = expected(site, scope, o), got = before[k];
    assert.ok(got, `version 10 answered: ${JSON.stringify(o)}`);
    // (rows compared in key order: an ask sorted by its reporters orders its ties by key)
    const drop = (r: typeof want) =>
      JSON.stringify(
        { ...r, rows: [...r.rows].sort((a, b) => JSON.stringify(a.key) < JSON.stringify(b.key) ? -1 : 1) },
        (key, v) => (key === "reporters" ? undefined : v),
      );
    assert.equal(drop(got), drop(want));
    assert.ok(
      got.rows.every((r) => r.metrics.reporters === 0) && got.totals.reporters === 0,
      "reporters read none",
    );
  });
  const olderEntries = await Promise.all(parts.map((p) => site.entry(p.meta.id)));
  await backfillAll(site);
  await assertSectionsKept(site, written, REPORTER_SECS);
  const got = await site.rollups().answer(scope, asks);
  assert.deepEqual(got, asks.map((o) => expected(site, scope, o)));
  // the reader that answered at version 10 answers anew: it kept neither the older entries nor, once a part is
  // read at the new version, what it had kept from the older sections (it answered reporters none before)
  assert.deepEqual(await live.answer(scope, asks), got);
  // an entry read before the rewrite finds the longer sections gone (undefined: the question re-plans), never
  // out of its bounds (a RangeError before, a 500 on every ask while that entry stayed kept)
  let longer = 0;
  for (const [i, p] of parts.entries()) {
    for (const sec of REPORTER_SECS) {
      const was = olderEntries[i].secs[sec], now = (await site.entry(p.meta.id)).secs[sec];
      if (!was || !now || now[0] <= was[0]) continue;
      longer++;
      assert.equal(await readSection(site.kv, p.meta.id, olderEntries[i], sec), undefined);
      const [many] = await readSections(site.kv, [{ partId: p.meta.id, entry: olderEntries[i], sec }]);
      assert.equal(many, undefined);
    }
  }
  assert.ok(longer > 0, "the backfill made some sections longer");
  // (some pages with 5 or more reporters, some with fewer)
  const counts = got[0]!.rows.map((r) => r.metrics.reporters);
  assert.ok(counts.includes(5) && counts.some((n) => n! < 5), JSON.stringify(counts));
  // current entries' sections written again (the same version; here without reporters, every part: which
  // part's reporters an answer shows follows the parts' random ids): a reader that kept its entries finds
  // chunks newer than the entries it holds (gone, whatever their size: the question re-plans, never reads
  // them as the old sections), reads the entries again next time and lets go of what it kept from those
  // parts: then it answers as a fresh reader does
  const lean = new RollupSource(site.deps, new Source(site.deps));
  assert.deepEqual(await lean.answer(scope, asks), got);
  // (what it kept but its entries let go, as its share does under pressure: the next question reads sections)
  // deno-lint-ignore no-explicit-any
  const kept = (lean as any).r as { cache: { keys(): Iterable<string>; delete(k: string): boolean } };
  for (const k of [...kept.cache.keys()]) if (k.includes("/") || k.startsWith("[")) kept.cache.delete(k);
  for (const p of parts) await withoutReporters(site, p.meta.id);
  const fresh = await site.rollups().answer(scope, asks);
  assert.notDeepEqual(fresh, got, "the rewrite changed the answers");
  const first = await lean.answer(scope, asks);
  first.forEach((a, k) => {
    if (a !== null) assert.deepEqual(a, fresh[k], "never the sections before the rewrite");
  });
  assert.deepEqual(await lean.answer(scope, asks), fresh);
  // a chunk written after the entry a question holds (the same bytes here: a rewrite of the same size) is not
  // read with it: the section is gone for that entry, and read with the entry written after it
  const id = parts[1].meta.id;
  const held = await site.kv.get<RollupEntry>(keys.rollup(id));
  readStamps.set(held.value!, held.versionstamp!);
  const sec = Number(Object.keys(held.value!.secs)[0]);
  assert.ok(await readSection(site.kv, id, held.value!, sec), "read before the rewrite");
  for (let j = 0; j < held.value!.secs[sec][1]; j++) {
    const chunk = await site.kv.get<Uint8Array>(keys.rollupChunk(id, sec * 10_000 + j));
    await site.kv.set(keys.rollupChunk(id, sec * 10_000 + j), chunk.value!);
  }
  assert.equal(await readSection(site.kv, id, held.value!, sec), undefined);
  assert.deepEqual(await readSections(site.kv, [{ partId: id, entry: held.value!, sec }]), [undefined]);
  await site.kv.set(keys.rollup(id), held.value!);
  const after = await site.kv.get<RollupEntry>(keys.rollup(id));
  readStamps.set(after.value!, after.versionstamp!);
  assert.ok(await readSection(site.kv, id, after.value!, sec), "read with the entry written after");
  await site.close();
});
