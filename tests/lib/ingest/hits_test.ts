import assert from "node:assert/strict";
import fc from "fast-check";
import { clockOffset, hitTime, MAX_AGE_MS, MAX_AHEAD_MS, refererHostOf } from "../../../lib/ingest/hits.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");

Deno.test("hit time: a kept time is never older than 7 days nor more than 5 minutes ahead (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -30 * 86_400_000, max: 30 * 86_400_000 }),
      fc.integer({ min: -86_400_000, max: 86_400_000 }),
      (delta, offset) => {
        const at = hitTime(new Date(NOW + delta).toISOString(), { receivedAt: NOW, clockOffsetMs: offset });
        if (at === null) return assert.ok(NOW + delta - offset < NOW - MAX_AGE_MS);
        assert.ok(at >= NOW - MAX_AGE_MS && at <= NOW + MAX_AHEAD_MS);
        // inside the window the corrected time is kept as is
        if (delta - offset <= MAX_AHEAD_MS) assert.equal(at, NOW + delta - offset);
        else assert.equal(at, NOW);
      },
    ),
  );
});

const DAY = 86_400_000;

Deno.test("hit time: the sender's offset comes from sent_at; an unreadable sent_at means none", () => {
  assert.equal(clockOffset(new Date(NOW + 5000).toISOString(), NOW), 5000);
  assert.equal(clockOffset("soon", NOW), 0);
  assert.equal(clockOffset(undefined, NOW), 0);
  assert.equal(hitTime(undefined, { receivedAt: NOW, clockOffsetMs: 5000 }), NOW);
  // a day either way is a clock's difference; past it, a request sent again, whose sent_at is none
  assert.equal(clockOffset(new Date(NOW - DAY).toISOString(), NOW), -DAY);
  assert.equal(clockOffset(new Date(NOW + DAY).toISOString(), NOW), DAY);
  assert.equal(clockOffset(new Date(NOW - DAY - 1).toISOString(), NOW), 0);
  assert.equal(clockOffset(new Date(NOW + DAY + 1).toISOString(), NOW), 0);
});

Deno.test("referer host: only the host is kept, whatever was sent", () => {
  assert.equal(refererHostOf("https://user:pw@News.Example.org:8080/a/b?c#d"), "news.example.org");
  assert.equal(refererHostOf("www.example.org/path"), "www.example.org");
  assert.equal(refererHostOf("example.org"), "example.org");
  assert.equal(refererHostOf(""), null);
  assert.equal(refererHostOf(null), null);
  assert.equal(refererHostOf("https:///nothing"), null);
});
