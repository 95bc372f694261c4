/**
 * A crawler-hit request stored by a sender (a durable retry queue, a replaying proxy, a log shipper catching
 * up) and sent again as it was built, after its dedupe keys (8 days) expired, is stored once: its stale
 * sent_at is not read as a slow clock, so the hits keep their own times and fail the 7-day age check. A
 * clock a few hours off is still corrected.
 */
import assert from "node:assert/strict";
import { GPTBOT_UA, hit, setup } from "./server_events_helpers.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("server-events: the same request sent again after its dedupe keys expired is not stored again", async () => {
  const t = await setup();
  t.deps.clock.set(NOW);
  const body = { sent_at: iso(NOW), events: [hit({ timestamp: iso(NOW - 60_000), user_agent: GPTBOT_UA })] };
  const first = await t.send(body.events, { sent_at: body.sent_at });
  assert.equal(first.accepted, 1);
  t.deps.clock.set(NOW + 5 * 60_000);
  assert.equal((await t.send(body.events, { sent_at: body.sent_at })).duplicates, 1);

  // day 9: KV's expiry runs on the wall clock, not the test's; remove what it would have removed by now
  t.deps.clock.set(NOW + 9 * DAY);
  let expired = 0;
  for await (const e of t.deps.kv.list({ prefix: ["dedupe"] })) {
    await t.deps.kv.delete(e.key);
    expired++;
  }
  assert.ok(expired > 0, "the hit had a dedupe key");
  const replay = await t.send(body.events, { sent_at: body.sent_at });
  assert.deepEqual(replay, {
    accepted: 0,
    duplicates: 0,
    rejected: { invalid: 1, unknown_host: 0, not_crawler: 0 },
  });
  assert.equal((await t.storedHits()).length, 1);
});

Deno.test("server-events: a sender clock hours off is corrected; past a day, sent_at is not taken as a clock", async () => {
  const t = await setup();
  t.deps.clock.set(NOW);
  // the sender's clock runs 5 hours slow (a zone set wrong): its hit from a minute ago reads 5 h 1 min ago
  await t.send([hit({ timestamp: iso(NOW - 5 * 3_600_000 - 60_000) })], {
    sent_at: iso(NOW - 5 * 3_600_000),
  });
  // a sent_at three days old: the hit's own time stands
  await t.send([hit({ timestamp: iso(NOW - 2 * DAY) })], { sent_at: iso(NOW - 3 * DAY) });
  const times = (await t.storedHits()).map((h) => h.timestamp).sort((a, b) => a - b);
  assert.deepEqual(times, [NOW - 2 * DAY, NOW - 60_000]);
});
