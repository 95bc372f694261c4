/**
 * Entries and exits from the spans' ends (spans.ts `SpanEnds`): a period adds each whole span's entry and exit
 * pages and joins only the sessions it joins for its totals, their rows' ends read from their blocks' entries
 * and exits, not every part's facts and ends. With every part's whole ends gone from KV the page questions
 * still answer from the rollups, equal to the reference; a rollup written without the spans' ends or the
 * blocks' exits gets them from the backfill (from its own facts, spans and ends), the bytes compaction writes.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import {
  ENDS_SEC,
  exitsSec,
  factsSec,
  hasRollup,
  readSection,
  SPAN_ENDS_SEC,
} from "../../../lib/query/rollup/store.ts";
import { BLOCKS } from "../../../lib/query/rollup/spans.ts";
import { keys } from "../../../lib/store/keys.ts";
import { ev } from "./fixtures.ts";
import { backfillAll, DAY, expected, openSite, severalParts, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };
const scopes: Scope[] = [
  scope,
  // a period from the hour before a midnight: the spans it cuts are joined from their blocks' rows
  { ...scope, from: MIDNIGHT - DAY - 3_600_000 },
  // one touchpoint, and bots with people
  { ...scope, touchpoint: "tp1" },
  { ...scope, traffic: ["human", "bot"] },
  // three days in Berlin: local midnights are not the parts' UTC ones
  { ...scope, from: MIDNIGHT - 3 * DAY - 3_600_000, to: MIDNIGHT - 3_600_000, timezone: "Europe/Berlin" },
];
const SEC_SPAN = 10_000;

async function endsSite() {
  const site = await openSite(NOW);
  // sessions of up to six hours over five days (across hours, midnights and parts: many in two parts), a few of
  // bots or of a second touchpoint, some with a click between pageviews, some ending on it
  const all = [];
  let serial = 0;
  for (let k = 0; k < 120; k++) {
    let at = MIDNIGHT - 5 * DAY + k * 61 * 60_000 + (k % 59) * 1000;
    for (let j = 0; j < 2 + (k % 6); j++) {
      at += ((k * 7 + j * 13) % 71) * 60_000;
      all.push(ev({
        id: `e${serial++}`,
        received_at: Math.min(at, NOW - 1),
        device_time: new Date(at - (k % 3) * 4_000).toISOString(),
        sequence_no: j,
        anonymous_id: `v${k % 15}`,
        session_id: `s${k % 5}`,
        event_type: j % 5 === 3 ? "$autocapture" : "$pageview",
        traffic: k % 6 === 5 ? "bot" : "human",
        crawler: k % 6 === 5 ? "GPTBot" : null,
        touchpoint: k % 7 === 6 ? "tp2" : "tp1",
        path: ["/", "/a", "/b", "/c", "/d"][(k * 3 + j) % 5],
      }));
    }
  }
  await site.add(all);
  await site.compact();
  return { site, parts: await severalParts(site) };
}

const asks: AggregateOptions[] = [
  { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] },
  { metrics: ["entries", "exits", "exit_rate", "sessions", "bounce_rate"] },
];

/** Each scope's asks answered from the rollups, equal to the reference. */
async function fromRollups(site: Site) {
  for (const s of scopes) {
    const got = await site.rollups().answer(s, asks);
    asks.forEach((o, i) => {
      assert.ok(got[i], `answered from the rollups: ${JSON.stringify({ s, i })}`);
      assert.deepEqual(got[i], expected(site, s, o), JSON.stringify({ s, i }));
    });
  }
}

Deno.test("span ends: entries and exits come from the spans' ends and the joined blocks' ends, not the ends whole", async () => {
  const { site: s, parts } = await endsSite();
  assert.ok(parts.length >= 4);
  for (const p of parts) {
    const entry = await s.entry(p.meta.id);
    assert.ok(entry.secs[SPAN_ENDS_SEC]);
    for (let b = 0; b < BLOCKS; b++) assert.equal(!entry.secs[factsSec(b)], !entry.secs[exitsSec(b)]);
    // the whole ends' chunks gone (the entry still names them): reading them would fail the answer
    for (let j = 0; j < entry.secs[ENDS_SEC][1]; j++) {
      await s.kv.delete(keys.rollupChunk(p.meta.id, ENDS_SEC * SEC_SPAN + j));
    }
  }
  await fromRollups(s);
  await s.close();
});

Deno.test("span ends: the backfill adds them and the blocks' exits, as compaction writes them", async () => {
  const { site: s, parts } = await endsSite();
  const written = new Map<string, Map<number, Uint8Array | null | undefined>>();
  for (const p of parts) {
    const entry = await s.entry(p.meta.id);
    const secs = { ...entry.secs }, kept = new Map<number, Uint8Array | null | undefined>();
    const added = [SPAN_ENDS_SEC, ...Array.from({ length: BLOCKS }, (_, b) => exitsSec(b))];
    for (const sec of added) {
      if (!secs[sec]) continue;
      kept.set(sec, await readSection(s.kv, p.meta.id, entry, sec));
      for (let j = 0; j < secs[sec][1]; j++) {
        await s.kv.delete(keys.rollupChunk(p.meta.id, sec * SEC_SPAN + j));
      }
      delete secs[sec];
    }
    assert.ok(kept.size > 1);
    written.set(p.meta.id, kept);
    await s.kv.set(keys.rollup(p.meta.id), { ...entry, secs });
    assert.equal(await hasRollup(s.kv, p.meta.id), false);
  }
  // without them, part by part from the facts and the whole ends
  await fromRollups(s);
  await backfillAll(s);
  for (const p of parts) {
    assert.ok(await hasRollup(s.kv, p.meta.id));
    const entry = await s.entry(p.meta.id);
    for (const [sec, bytes] of written.get(p.meta.id)!) {
      assert.deepEqual(await readSection(s.kv, p.meta.id, entry, sec), bytes, `section ${sec}`);
    }
  }
  await fromRollups(s);
  await s.close();
});
