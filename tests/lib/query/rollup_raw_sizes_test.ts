/**
 * Each rollup section's inflated size in its entry (store.ts `Sec`, third figure): compaction writes it, a
 * reader passes it on with the stored bytes (packed_arrays.ts `knowRawSize`) so inflating makes one buffer of
 * that size, and the backfill adds it to entries written before it. Answers are the same with and without.
 */
import assert from "node:assert/strict";
import { inflateRawSync } from "node:zlib";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { rawSizeOf } from "../../../lib/parts/packed_arrays.ts";
import {
  hasRawSizes,
  hasRollup,
  readSection,
  readSections,
  type RollupEntry,
} from "../../../lib/query/rollup/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import {
  backfillAll,
  DAY,
  expected,
  midnightSessions,
  MINUTE,
  openSite,
  severalParts,
  type Site,
} from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");

async function openRawSite(): Promise<Site> {
  const site = await openSite(NOW);
  // sessions across midnights (each in two parts), pages and sources of several values
  await site.add(midnightSessions(MIDNIGHT, 900, 40 * MINUTE, (i) => ({
    id: `r${i}`,
    path: `/p${i % 11}`,
    source: i % 3 ? "news.example.com" : "(direct)",
  })));
  await site.compact();
  return site;
}

const scope: Scope = { org: "org1", env: "production", from: NOW - 6 * DAY, to: NOW, timezone: "UTC" };
const asks: AggregateOptions[] = [
  { metrics: ["visitors", "sessions", "bounce_rate", "pageviews"] },
  { metrics: ["visitors", "pageviews"], breakdown: ["page"] },
  { metrics: ["visitors", "sessions"], breakdown: ["source"] },
];

async function answersEqual(site: Site) {
  const got = await site.rollups().answer(scope, asks);
  asks.forEach((q, i) => {
    assert.ok(got[i], `answered from the rollups: ${JSON.stringify(q)}`);
    assert.deepEqual(got[i], expected(site, scope, q));
  });
}

/** Each section's listed inflated size equals its bytes inflated. */
async function assertSizesTrue(site: Site, partId: string, entry: RollupEntry) {
  for (const [sec, size] of Object.entries(entry.secs)) {
    const stored = await readSection(site.kv, partId, entry, Number(sec));
    assert.ok(stored, `section ${sec}`);
    assert.equal(size[2], inflateRawSync(stored).length, `section ${sec}'s inflated size`);
  }
}

Deno.test("raw sizes: compaction lists each section's inflated size, and readers pass it on with the bytes", async () => {
  const site = await openRawSite();
  for (const p of await severalParts(site)) {
    const entry = await site.entry(p.meta.id);
    assert.ok(hasRawSizes(entry), "compaction writes every section's inflated size");
    await assertSizesTrue(site, p.meta.id, entry);
    const secs = Object.keys(entry.secs).map(Number);
    const read = await readSections(site.kv, secs.map((sec) => ({ partId: p.meta.id, entry, sec })));
    read.forEach((bytes, x) => assert.equal(rawSizeOf(bytes!), entry.secs[secs[x]][2], `section ${secs[x]}`));
  }
  await answersEqual(site);
  await site.close();
});

Deno.test("raw sizes: entries written without them answer the same, and the backfill adds them as compaction writes them", async () => {
  const site = await openRawSite();
  const written = new Map<string, RollupEntry>();
  for (const [x, p] of (await severalParts(site)).entries()) {
    const entry = await site.entry(p.meta.id);
    written.set(p.meta.id, entry);
    if (x % 2) continue;
    // as written before 28 Nov: stored bytes and chunks only
    const secs = Object.fromEntries(Object.entries(entry.secs).map(([sec, s]) => [sec, [s[0], s[1]]]));
    await site.kv.set(keys.rollup(p.meta.id), { ...entry, secs });
    assert.equal(await hasRollup(site.kv, p.meta.id), false);
  }
  await answersEqual(site);
  await backfillAll(site);
  for (const [id, entry] of written) {
    assert.ok(await hasRollup(site.kv, id));
    assert.deepEqual(await site.entry(id), entry, "the backfill lists the sizes compaction lists");
  }
  await answersEqual(site);
  await site.close();
});

Deno.test("raw sizes: a part whose section cannot be read gets its rollup made again from the part, not retried every run", async () => {
  const site = await openRawSite();
  const [p] = await severalParts(site);
  const entry = await site.entry(p.meta.id);
  const secs = Object.fromEntries(Object.entries(entry.secs).map(([sec, s]) => [sec, [s[0], s[1]]]));
  await site.kv.set(keys.rollup(p.meta.id), { ...entry, secs });
  // one section's chunks lost
  const lost = Number(Object.keys(entry.secs)[0]);
  for (let j = 0; j < entry.secs[lost][1]; j++) {
    await site.kv.delete(keys.rollupChunk(p.meta.id, lost * 10_000 + j));
  }
  await backfillAll(site);
  assert.ok(await hasRollup(site.kv, p.meta.id), "the part's rollup is whole again");
  assert.ok(
    await readSection(site.kv, p.meta.id, await site.entry(p.meta.id), lost),
    "the lost section made again",
  );
  await answersEqual(site);
  await site.close();
});
