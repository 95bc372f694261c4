/** The reporter as the host sees it: never in the way, bounded, observable, flushed on shutdown. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCrawlReporter, type ReporterOptions } from "../src/index.ts";
import {
  CHROME,
  collectingLogger,
  FakeTimers,
  GOOGLEBOT,
  type Reply,
  scriptedEndpoint,
  seen,
  UUID,
} from "./support.ts";

function setup(replies: Reply[] = [], options: Partial<ReporterOptions> = {}) {
  const timers = new FakeTimers();
  const endpoint = scriptedEndpoint(timers, replies);
  const logger = collectingLogger();
  const reporter = createCrawlReporter({
    serverKey: "svc_sk_prod_secret_value_1",
    baseUrl: "https://collect.test",
    fetch: endpoint.fetch,
    timers,
    logger,
    flushIntervalMs: 1_000,
    retryDelayMs: 500,
    backoffMs: 2_000,
    ...options,
  });
  return { timers, calls: endpoint.calls, logger, reporter };
}

describe("reporter: the request path", () => {
  test("observe is synchronous and sends nothing itself, even when a batch is full", () => {
    const { calls, reporter } = setup([], { batchSize: 1 });
    const result: unknown = reporter.observe(...seen("/a", GOOGLEBOT));
    assert.equal(result, undefined, "no promise to await");
    assert.equal(calls.length, 0);
    assert.equal(reporter.stats().queued, 1);
  });

  test("errors never reach the host: a throwing fetch, shouldReport or header reader", async () => {
    const timers = new FakeTimers();
    const logger = collectingLogger();
    const reporter = createCrawlReporter({
      serverKey: "svc_sk_prod_x_12345678",
      baseUrl: "https://collect.test",
      timers,
      logger,
      fetch: () => {
        throw new Error("fetch exploded synchronously");
      },
      shouldReport: (c) => {
        if (c.path === "/throw") throw new Error("callback bug");
        return true;
      },
    });
    reporter.observe(...seen("/throw", GOOGLEBOT));
    const hostile = {
      get: () => {
        throw new Error("headers gone");
      },
    };
    reporter.observe({ method: "GET", url: "/x", headers: hostile }, {
      status: 200,
      contentType: null,
    });
    reporter.observe({
      method: "GET",
      url: "http://[bad",
      headers: new Headers(),
    }, { status: 200, contentType: null });
    reporter.observe(...seen("/ok", GOOGLEBOT));
    await timers.advance(5_000 + 2_000);
    assert.equal(
      reporter.stats().dropped.failed,
      1,
      "the sync throw counted as a network error",
    );
    assert.equal(reporter.stats().skipped.should_report, 1);
    assert.equal(
      logger.warnings.filter((w) => w.includes("could not report")).length,
      1,
      "said once",
    );
  });

  test("a logger that throws breaks neither the host nor the sender", async () => {
    const timers = new FakeTimers();
    const endpoint = scriptedEndpoint(timers, [500, 500, 401]);
    const throwing = {
      warn: () => {
        throw new Error("log sink down");
      },
      error: () => {
        throw new Error("log sink down");
      },
    };
    const reporter = createCrawlReporter({
      serverKey: "svc_sk_prod_x_12345678",
      baseUrl: "https://collect.test",
      fetch: endpoint.fetch,
      timers,
      logger: throwing,
      retryDelayMs: 10,
      backoffMs: 10,
    });
    const hostile = {
      get: () => {
        throw new Error("headers gone");
      },
    };
    reporter.observe({ method: "GET", url: "/x", headers: hostile }, { status: 200, contentType: null });
    reporter.observe(...seen("/a", GOOGLEBOT));
    await timers.advance(5_010); // 500, retry 500: dropped with a warning
    reporter.observe(...seen("/b", GOOGLEBOT));
    await timers.advance(5_000); // 401: stopped with an error
    await reporter.shutdown();
    assert.equal(endpoint.calls.length, 3);
    assert.equal(reporter.stats().dropped.failed, 1);
    assert.equal(reporter.stats().stopped, true);
  });

  test("skipped requests are counted by the rule that left them out", () => {
    const { reporter } = setup();
    reporter.observe(...seen("/a", CHROME));
    reporter.observe(...seen("/a", GOOGLEBOT, { method: "POST" }));
    reporter.observe(...seen("/app.js", GOOGLEBOT));
    reporter.observe(
      ...seen("/a", GOOGLEBOT, { contentType: "application/json" }),
    );
    reporter.observe(...seen("/a", null));
    reporter.observe(...seen("/a", "kube-probe/1.30"));
    reporter.observe(...seen("/a", GOOGLEBOT));
    assert.deepEqual(reporter.stats().skipped, {
      method: 1,
      path: 1,
      content_type: 1,
      no_user_agent: 1,
      health_probe: 1,
      browser: 1,
      should_report: 0,
    });
    assert.equal(reporter.stats().queued, 1);
  });
});

describe("reporter: bounded queue", () => {
  test("beyond maxQueueSize the oldest hits are dropped and counted", async () => {
    const { timers, calls, reporter } = setup([], { maxQueueSize: 3 });
    for (const path of ["/1", "/2", "/3", "/4", "/5"]) {
      reporter.observe(...seen(path, GOOGLEBOT));
    }
    assert.equal(reporter.stats().queued, 3);
    assert.equal(reporter.stats().dropped.queue_full, 2);
    await timers.advance(1_000);
    assert.deepEqual(calls[0].body.events.map((e) => e.path), [
      "/3",
      "/4",
      "/5",
    ]);
  });

  test("hits held after a 429 count toward the bound while the service is away", async () => {
    const { timers, reporter } = setup([{
      status: 429,
      headers: { "retry-after": "60" },
    }], { maxQueueSize: 4 });
    for (const path of ["/1", "/2", "/3"]) {
      reporter.observe(...seen(path, GOOGLEBOT));
    }
    await timers.advance(1_000);
    for (const path of ["/4", "/5", "/6"]) {
      reporter.observe(...seen(path, GOOGLEBOT));
    }
    const stats = reporter.stats();
    assert.equal(stats.queued, 4);
    assert.equal(stats.dropped.queue_full, 2);
  });
});

describe("reporter: batches", () => {
  test("no request carries more than 500 hits or 1 MB, and every hit is sent once", async () => {
    const { timers, calls, reporter } = setup([], { maxQueueSize: 5_000 });
    const heavyUa = "Mozilla/5.0 (compatible; HeavyBot/1.0; +http://heavy.test/" +
      '"'.repeat(480) + ")";
    for (let i = 0; i < 1_200; i++) {
      reporter.observe(...seen(`/p/${i}/${"x".repeat(900)}`, heavyUa));
    }
    await reporter.flush();
    await timers.advance(0);
    const sizes = calls.map((c) => c.body.events.length);
    assert.ok(calls.length >= 3, `split into ${sizes}`);
    for (const call of calls) {
      assert.ok(call.body.events.length <= 500);
      assert.ok(call.bytes < 1_000_000, `a request of ${call.bytes} bytes`);
    }
    const ids = calls.flatMap((c) => c.body.events.map((e) => e.event_id));
    assert.equal(ids.length, 1_200);
    assert.equal(new Set(ids).size, 1_200);
    for (const id of ids) assert.match(id, UUID);
    assert.equal(reporter.stats().sent, 1_200);
  });

  test("batchSize above 500 is capped at 500", async () => {
    const { timers, calls, reporter } = setup([], { batchSize: 10_000 });
    for (let i = 0; i < 1_001; i++) {
      reporter.observe(...seen(`/p/${i}`, GOOGLEBOT));
    }
    await timers.advance(1_000);
    assert.deepEqual(calls.map((c) => c.body.events.length), [500, 500, 1]);
  });
});

describe("reporter: shutdown", () => {
  test("flushes what is queued and refuses hits after it", async () => {
    const { calls, reporter } = setup([], { flushIntervalMs: 60_000 });
    reporter.observe(...seen("/1", GOOGLEBOT));
    reporter.observe(...seen("/2", GOOGLEBOT));
    await reporter.shutdown();
    assert.equal(calls.length, 1);
    assert.equal(reporter.stats().sent, 2);
    reporter.observe(...seen("/3", GOOGLEBOT));
    assert.equal(reporter.stats().dropped.shutdown, 1);
    assert.equal(calls.length, 1);
  });

  test("waits through a short retry, but counts hits it cannot send before flushTimeoutMs", async () => {
    const { timers, calls, reporter } = setup([{
      status: 429,
      headers: { "retry-after": "3600" },
    }], {
      flushTimeoutMs: 5_000,
    });
    reporter.observe(...seen("/1", GOOGLEBOT));
    await reporter.shutdown();
    await timers.advance(0);
    assert.equal(calls.length, 1);
    assert.equal(reporter.stats().dropped.shutdown, 1);
    assert.equal(reporter.stats().queued, 0);
  });

  test("a 5xx during shutdown gets its one retry", async () => {
    const { timers, calls, reporter } = setup([503]);
    reporter.observe(...seen("/1", GOOGLEBOT));
    const done = reporter.shutdown();
    await timers.advance(500);
    await done;
    assert.equal(calls.length, 2);
    assert.equal(reporter.stats().sent, 1);
  });
});

describe("reporter: configuration", () => {
  test("without a server key it stays inert and says why once", () => {
    const logger = collectingLogger();
    const reporter = createCrawlReporter({
      serverKey: undefined,
      baseUrl: "https://collect.test",
      logger,
    });
    reporter.observe(...seen("/a", GOOGLEBOT));
    assert.equal(reporter.stats().queued, 0);
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0], /serverKey/);
  });

  test("enabled: false turns reporting off silently", () => {
    const logger = collectingLogger();
    const reporter = createCrawlReporter({
      serverKey: "k",
      baseUrl: "https://c.test",
      enabled: false,
      logger,
    });
    reporter.observe(...seen("/a", GOOGLEBOT));
    assert.equal(reporter.stats().queued, 0);
    assert.equal(logger.warnings.length, 0);
  });
});
