/**
 * Entry-page questions through the runs read the entries of the joined blocks only (`entriesSec`), not the
 * part's ends whole: with every part's whole ends gone from KV they still answer from the runs, equal to the
 * reference. A rollup written without block entries gets them from the backfill (from its own ends), the same
 * bytes compaction writes.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { runsAnswered } from "../../../lib/query/rollup/attribution_period.ts";
import { ENDS_SEC, entriesSec, factsSec, hasRollup, readSection } from "../../../lib/query/rollup/store.ts";
import { BLOCKS } from "../../../lib/query/rollup/spans.ts";
import { keys } from "../../../lib/store/keys.ts";
import { ev } from "./fixtures.ts";
import { backfillAll, DAY, expected, openSite, severalParts, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
// a period cutting the hour before a midnight: its sessions there are joined from their blocks' rows
const cut: Scope = { ...scope, from: MIDNIGHT - DAY - 600_000 };
const SEC_SPAN = 10_000;

async function blockSite() {
  const site = await openSite(NOW);
  // sessions of up to six hours over five days (across hours, midnights and parts), a few of bots or of a second
  // touchpoint, their source changing on the way: many are joined from their blocks' rows
  const all = [];
  let serial = 0;
  for (let k = 0; k < 90; k++) {
    let at = MIDNIGHT - 5 * DAY + k * 79 * 60_000 + (k % 59) * 1000;
    for (let j = 0; j < 6; j++) {
      at += ((k * 7 + j * 13) % 71) * 60_000;
      const o = (k + (j === 3 ? 1 : 0)) % 3;
      all.push(ev({
        id: `e${serial++}`,
        received_at: Math.min(at, NOW - 1),
        device_time: new Date(at).toISOString(),
        sequence_no: j,
        anonymous_id: `v${k % 12}`,
        session_id: `s${k % 4}`,
        event_type: j % 4 === 2 ? "sign_up" : "$pageview",
        traffic: k % 4 === 3 ? "bot" : "human",
        crawler: k % 4 === 3 ? "GPTBot" : null,
        touchpoint: k % 5 === 4 ? "tp2" : "tp1",
        path: ["/", "/a", "/b", "/c"][(k + j) % 4],
        source: ["google", "(direct)", "chatgpt"][o],
        channel: (["Organic Search", "Direct", "AI Assistant"] as const)[o],
      }));
    }
  }
  await site.add(all);
  await site.compact();
  return { site, parts: await severalParts(site) };
}

const asks: AggregateOptions[] = [
  { metrics: ["visitors", "sessions"], breakdown: ["source", "entry_page"] },
  {
    metrics: ["visitors", "sessions", "conversions"],
    breakdown: ["entry_page"],
    goal: { event_type: "sign_up" },
  },
];

/** The scope's asks answered through the runs, equal to the reference. */
async function fromRuns(site: Site, s: Scope) {
  const before = runsAnswered.count;
  const got = await site.rollups().answer(s, asks);
  assert.equal(runsAnswered.count - before, asks.length);
  asks.forEach((o, i) => assert.deepEqual(got[i], expected(site, s, o)));
}

Deno.test("rollup entry blocks: entry pages through the runs read the blocks' entries, not the ends whole", async () => {
  const { site: s, parts } = await blockSite();
  for (const p of parts) {
    const entry = await s.entry(p.meta.id);
    for (let b = 0; b < BLOCKS; b++) assert.equal(!entry.secs[factsSec(b)], !entry.secs[entriesSec(b)]);
    // the whole ends' chunks gone (the entry still names them): reading them would fail the runs
    for (let j = 0; j < entry.secs[ENDS_SEC][1]; j++) {
      await s.kv.delete(keys.rollupChunk(p.meta.id, ENDS_SEC * SEC_SPAN + j));
    }
  }
  for (const period of [scope, cut]) await fromRuns(s, period);
  await s.close();
});

Deno.test("rollup entry blocks: the backfill adds them from the rollup's ends, as compaction writes them", async () => {
  const { site: s, parts } = await blockSite();
  const written = new Map<string, Map<number, Uint8Array | null | undefined>>();
  for (const p of parts) {
    const entry = await s.entry(p.meta.id);
    const secs = { ...entry.secs }, kept = new Map<number, Uint8Array | null | undefined>();
    for (let b = 0; b < BLOCKS; b++) {
      if (!secs[entriesSec(b)]) continue;
      kept.set(b, await readSection(s.kv, p.meta.id, entry, entriesSec(b)));
      for (let j = 0; j < secs[entriesSec(b)][1]; j++) {
        await s.kv.delete(keys.rollupChunk(p.meta.id, entriesSec(b) * SEC_SPAN + j));
      }
      delete secs[entriesSec(b)];
    }
    assert.ok(kept.size > 0);
    written.set(p.meta.id, kept);
    await s.kv.set(keys.rollup(p.meta.id), { ...entry, secs });
    assert.equal(await hasRollup(s.kv, p.meta.id), false);
  }
  // without them, from the whole ends
  await fromRuns(s, cut);
  await backfillAll(s);
  for (const p of parts) {
    assert.ok(await hasRollup(s.kv, p.meta.id));
    const entry = await s.entry(p.meta.id);
    for (const [b, bytes] of written.get(p.meta.id)!) {
      assert.deepEqual(await readSection(s.kv, p.meta.id, entry, entriesSec(b)), bytes);
    }
  }
  await fromRuns(s, cut);
  await s.close();
});
