/**
 * `sent_at` is an ISO 8601 date-time with a timezone, as `timestamp` is. Before, the route read it with
 * Date.parse: "2026-11-29 20:06:31" (no zone) was taken in the server's local time and "Sun Nov 29 2026 …"
 * strings were taken too, both moving every hit of the batch by the guessed offset, and "nope" was quietly
 * ignored. sent_at is one per request and corrects every hit in it, so a bad one refuses the request (422
 * naming `sent_at`, nothing stored), as the envelope's other fields do.
 */
import assert from "node:assert/strict";
import { hit, setup } from "./server_events_helpers.ts";

const NOW = Date.parse("2026-11-29T20:10:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("server-events: a sent_at without a zone, in another format or not a time is a 422 naming it", async () => {
  const t = await setup();
  t.deps.clock.set(NOW);
  const bad: [unknown, RegExp][] = [
    ["2026-11-29 20:06:31", /sent_at: has no timezone/],
    ["2026-11-29T20:06:31", /sent_at: has no timezone/],
    [
      "Sun Nov 29 2026 20:06:31 GMT+0000 (Coordinated Universal Time)",
      /sent_at: must be an ISO 8601 date-time/,
    ],
    ["Sun, 29 Nov 2026 20:06:31 GMT", /sent_at: must be an ISO 8601 date-time/],
    ["nope", /sent_at: must be an ISO 8601 date-time/],
    ["", /sent_at: must be an ISO 8601 date-time/],
    [1795982791000, /sent_at: /],
  ];
  for (const [sentAt, message] of bad) {
    const res = await t.post(t.tenant.serverKey, {
      sent_at: sentAt,
      events: [hit({ timestamp: "2026-11-29T20:06:00Z" })],
    });
    const text = await res.text();
    assert.equal(res.status, 422, `${JSON.stringify(sentAt)}: ${res.status} ${text}`);
    const body = JSON.parse(text);
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.match(body.error, message, JSON.stringify(sentAt));
  }
  assert.equal((await t.storedHits()).length, 0, "nothing of a refused request is stored");
});

Deno.test("server-events: a sent_at with Z or an offset still corrects the hits; null or none means no offset", async () => {
  const t = await setup();
  t.deps.clock.set(NOW);
  // the sender's clock runs 2 hours ahead, written with an offset; its hit a minute ago reads 1 h 59 min ahead
  const ahead = NOW + 2 * 3_600_000;
  const local = new Date(ahead + 3_600_000).toISOString().replace(/\.\d+Z$/, "+01:00");
  const r1 = await t.send([hit({ timestamp: iso(ahead - 60_000) })], { sent_at: local });
  assert.equal(r1.accepted, 1);
  const r2 = await t.send([hit({ timestamp: iso(NOW - 120_000) })], { sent_at: null });
  assert.equal(r2.accepted, 1);
  const r3 = await t.send([hit({ timestamp: iso(NOW - 180_000) })]);
  assert.equal(r3.accepted, 1);
  const times = (await t.storedHits()).map((h) => h.timestamp).sort((a, b) => a - b);
  assert.deepEqual(times, [NOW - 180_000, NOW - 120_000, NOW - 60_000]);
});
