/** Whatever the service answers, every reported hit ends up counted exactly once, and no rule is broken. */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { createCrawlReporter } from "../src/index.ts";
import { collectingLogger, FakeTimers, GOOGLEBOT, type Reply, scriptedEndpoint, seen } from "./support.ts";

const REPLIES: Reply[] = [
  202,
  200,
  400,
  401,
  403,
  404,
  408,
  413,
  422,
  500,
  503,
  "network",
  "hang",
  { status: 429, headers: { "retry-after": "2" } },
  429,
];

test("sender property: sent + dropped + queued always equals the hits reported, and nothing follows a stop", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...REPLIES), { maxLength: 12 }),
      fc.array(fc.record({ hits: fc.nat(25), waitMs: fc.nat(4_000) }), { minLength: 1, maxLength: 6 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 3, max: 60 }),
      async (replies, rounds, batchSize, maxQueueSize) => {
        const timers = new FakeTimers();
        const endpoint = scriptedEndpoint(timers, replies);
        const reporter = createCrawlReporter({
          serverKey: "svc_sk_prod_property_1",
          baseUrl: "https://collect.test",
          fetch: endpoint.fetch,
          timers,
          logger: collectingLogger(),
          batchSize,
          maxQueueSize,
          flushIntervalMs: 1_000,
          retryDelayMs: 300,
          timeoutMs: 2_000,
          backoffMs: 500,
          maxBackoffMs: 4_000,
          flushTimeoutMs: 20_000,
        });
        let reported = 0;
        for (const round of rounds) {
          for (let i = 0; i < round.hits; i++) reporter.observe(...seen(`/p/${reported++}`, GOOGLEBOT));
          const s = reporter.stats();
          const dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
          assert.equal(s.sent + dropped + s.queued, reported, "conservation while running");
          assert.ok(s.queued <= maxQueueSize, "the queue stays bounded");
          await timers.advance(round.waitMs);
        }
        let finished = false;
        const done = reporter.shutdown().then(() => (finished = true));
        while (!finished) await timers.advance(1_000);
        await done;

        const s = reporter.stats();
        const dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
        assert.equal(s.queued, 0);
        assert.equal(s.sent + dropped, reported, JSON.stringify(s));

        const acknowledged = new Set<string>();
        let stoppedAt = -1;
        for (const [i, call] of endpoint.calls.entries()) {
          assert.ok(call.body.events.length >= 1 && call.body.events.length <= batchSize);
          for (const e of call.body.events) assert.ok(!acknowledged.has(e.event_id), "no resend after a 2xx");
          const reply = i < replies.length ? replies[i] : 202;
          const status = typeof reply === "number" ? reply : typeof reply === "object" ? reply.status : 0;
          if (status >= 200 && status < 300) {
            for (const e of call.body.events) acknowledged.add(e.event_id);
          }
          if ((status === 401 || status === 403) && stoppedAt < 0) stoppedAt = i;
        }
        if (stoppedAt >= 0) assert.equal(endpoint.calls.length, stoppedAt + 1, "nothing after 401/403");
        assert.equal(acknowledged.size, s.sent);
      },
    ),
    { numRuns: 30 },
  );
});
