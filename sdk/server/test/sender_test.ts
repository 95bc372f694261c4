/** The sender against a scripted endpoint, one response class at a time, on a fake clock. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCrawlReporter, type ReporterOptions, SDK_NAME, SDK_VERSION } from "../src/index.ts";
import { collectingLogger, FakeTimers, GOOGLEBOT, type Reply, scriptedEndpoint, seen } from "./support.ts";

const INTERVAL = 1_000;
const RETRY_DELAY = 500;
const BACKOFF = 2_000;
const TIMEOUT = 3_000;

function setup(replies: Reply[] = [], options: Partial<ReporterOptions> = {}) {
  const timers = new FakeTimers();
  const endpoint = scriptedEndpoint(timers, replies);
  const logger = collectingLogger();
  const reporter = createCrawlReporter({
    serverKey: "svc_sk_prod_secret_value_1",
    baseUrl: "https://collect.test/",
    fetch: endpoint.fetch,
    timers,
    logger,
    flushIntervalMs: INTERVAL,
    retryDelayMs: RETRY_DELAY,
    backoffMs: BACKOFF,
    maxBackoffMs: 60_000,
    timeoutMs: TIMEOUT,
    ...options,
  });
  const crawl = (...paths: string[]) => {
    for (const path of paths) reporter.observe(...seen(path, GOOGLEBOT));
  };
  const pathsOf = (i: number) => endpoint.calls[i].body.events.map((e) => e.path);
  const idsOf = (i: number) => endpoint.calls[i].body.events.map((e) => e.event_id);
  const start = timers.now();
  const at = (i: number) => endpoint.calls[i].at - start;
  return {
    timers,
    endpoint,
    calls: endpoint.calls,
    logger,
    reporter,
    crawl,
    pathsOf,
    idsOf,
    at,
  };
}

describe("sender: 2xx", () => {
  test("hits wait for the interval, then go in one batch with key, JSON, sdk and sent_at", async () => {
    const { timers, calls, reporter, crawl, pathsOf, at } = setup();
    crawl("/a", "/b", "/c");
    await timers.advance(INTERVAL - 1);
    assert.equal(calls.length, 0);
    await timers.advance(1);
    assert.equal(calls.length, 1);
    assert.equal(at(0), INTERVAL);
    assert.equal(
      calls[0].url,
      "https://collect.test/v1/behavior/server-events",
    );
    assert.equal(
      calls[0].headers["authorization"],
      "Bearer svc_sk_prod_secret_value_1",
    );
    assert.equal(calls[0].headers["content-type"], "application/json");
    assert.equal(calls[0].headers["origin"], undefined);
    assert.deepEqual(calls[0].body.sdk, {
      name: SDK_NAME,
      version: SDK_VERSION,
    });
    assert.equal(calls[0].body.sent_at, new Date(timers.now()).toISOString());
    assert.deepEqual(pathsOf(0), ["/a", "/b", "/c"]);
    const stats = reporter.stats();
    assert.equal(stats.sent, 3);
    assert.equal(stats.queued, 0);
    assert.equal(stats.service.accepted, 3);
  });

  test("a full batch goes at once, without waiting for the interval", async () => {
    const { timers, calls, crawl, pathsOf } = setup([], { batchSize: 2 });
    crawl("/1", "/2", "/3", "/4", "/5");
    assert.equal(calls.length, 0, "nothing is sent on the request path");
    await timers.advance(0);
    assert.deepEqual([pathsOf(0), pathsOf(1)], [["/1", "/2"], ["/3", "/4"]]);
    await timers.advance(INTERVAL);
    assert.deepEqual(pathsOf(2), ["/5"]);
    assert.equal(calls.length, 3);
  });
});

describe("sender: 401 and 403 stop sending until restart", () => {
  for (const status of [401, 403]) {
    test(`${status}: the batch and the queue are dropped, nothing more is sent, and it is said once`, async () => {
      const body = {
        error: "server key unknown",
        code: status === 401 ? "UNAUTHORIZED" : "FORBIDDEN",
      };
      const { timers, calls, logger, reporter, crawl } = setup([{
        status,
        body,
      }], { batchSize: 2 });
      crawl("/1", "/2", "/3");
      await timers.advance(0);
      assert.equal(calls.length, 1);
      crawl("/4", "/5", "/6", "/7");
      await timers.advance(600_000);
      assert.equal(calls.length, 1, "no request after the stop");
      assert.equal(logger.errors.length, 1);
      assert.match(logger.errors[0], new RegExp(`HTTP ${status}`));
      assert.match(logger.errors[0], /stopped until the process restarts/);
      assert.doesNotMatch(
        logger.errors[0],
        /svc_sk_prod_secret_value_1/,
        "the key is never logged",
      );
      const stats = reporter.stats();
      assert.equal(stats.stopped, true);
      assert.equal(stats.dropped.unauthorized, 7);
      assert.equal(stats.queued, 0);
      await reporter.shutdown();
      assert.equal(calls.length, 1, "not even on shutdown");
    });
  }
});

describe("sender: 413", () => {
  test("drops the batch, halves the batch size and backs off", async () => {
    const { timers, calls, reporter, crawl, pathsOf, at } = setup([413], {
      batchSize: 4,
    });
    crawl("/1", "/2", "/3", "/4");
    await timers.advance(0);
    assert.deepEqual(pathsOf(0), ["/1", "/2", "/3", "/4"]);
    assert.equal(reporter.stats().dropped.too_large, 4);
    assert.equal(reporter.stats().batchSize, 2);
    crawl("/5", "/6", "/7");
    await timers.advance(BACKOFF - 1);
    assert.equal(calls.length, 1, "paused for the backoff");
    await timers.advance(1);
    assert.deepEqual(pathsOf(1), ["/5", "/6"]);
    assert.equal(at(1), BACKOFF);
    await timers.advance(INTERVAL);
    assert.deepEqual(pathsOf(2), ["/7"]);
    assert.equal(reporter.stats().sent, 3);
  });

  test("the batch size never falls below one", async () => {
    const { timers, reporter, crawl } = setup([413, 413, 413], {
      batchSize: 2,
    });
    crawl("/1", "/2");
    await timers.advance(0);
    crawl("/3");
    await timers.advance(60_000);
    crawl("/4");
    await timers.advance(60_000);
    assert.equal(reporter.stats().batchSize, 1);
    assert.equal(reporter.stats().dropped.too_large, 4);
  });
});

describe("sender: 429 keeps the batch", () => {
  test("pauses for Retry-After seconds, then sends the same hits again", async () => {
    const { timers, calls, reporter, crawl, idsOf, at } = setup([{
      status: 429,
      headers: { "retry-after": "7" },
    }]);
    crawl("/1", "/2");
    await timers.advance(INTERVAL);
    assert.equal(calls.length, 1);
    assert.equal(reporter.stats().queued, 2);
    assert.equal(reporter.stats().pausedUntil, timers.now() + 7_000);
    crawl("/3");
    await timers.advance(6_999);
    assert.equal(calls.length, 1, "paused");
    await timers.advance(1);
    assert.equal(calls.length, 2);
    assert.equal(at(1), INTERVAL + 7_000);
    assert.deepEqual(
      idsOf(1),
      idsOf(0),
      "the same event_ids, so the service can dedupe",
    );
    await timers.advance(INTERVAL);
    assert.equal(calls.length, 3);
    assert.equal(calls[2].body.events[0].path, "/3");
    assert.deepEqual(reporter.stats().dropped, {
      queue_full: 0,
      too_large: 0,
      failed: 0,
      rejected: 0,
      unauthorized: 0,
      shutdown: 0,
    });
    assert.equal(reporter.stats().sent, 3);
  });

  test("Retry-After as an HTTP date is honoured", async () => {
    const timers0 = new FakeTimers();
    const retryAt = new Date(timers0.now() + INTERVAL + 12_000).toUTCString();
    const { timers, calls, crawl, at } = setup([{
      status: 429,
      headers: { "retry-after": retryAt },
    }]);
    crawl("/1");
    await timers.advance(INTERVAL + 11_999);
    assert.equal(calls.length, 1);
    await timers.advance(1);
    assert.equal(calls.length, 2);
    assert.equal(at(1), INTERVAL + 12_000);
  });

  test("without Retry-After it pauses for the backoff, which doubles while 429 lasts", async () => {
    const { timers, calls, reporter, crawl, at } = setup([429, 429, 202]);
    crawl("/1");
    await timers.advance(INTERVAL + BACKOFF + 2 * BACKOFF);
    assert.equal(calls.length, 3);
    assert.deepEqual([at(0), at(1), at(2)], [
      INTERVAL,
      INTERVAL + BACKOFF,
      INTERVAL + 3 * BACKOFF,
    ]);
    assert.equal(reporter.stats().sent, 1);
  });
});

describe("sender: 408, 5xx, network error and timeout retry once", () => {
  const failures: Array<[string, Reply]> = [
    ["408", 408],
    ["500", { status: 500, body: { error: "boom", code: "OPERATION_FAILED" } }],
    ["502", 502],
    ["503", 503],
    ["a network error", "network"],
  ];
  for (const [name, failure] of failures) {
    test(`${name} then success: one retry after retryDelayMs with the same hits`, async () => {
      const { timers, calls, reporter, crawl, idsOf, at } = setup([
        failure,
        202,
      ]);
      crawl("/1", "/2");
      await timers.advance(INTERVAL + RETRY_DELAY);
      assert.equal(calls.length, 2);
      assert.equal(at(1) - at(0), RETRY_DELAY);
      assert.deepEqual(idsOf(1), idsOf(0));
      assert.equal(reporter.stats().sent, 2);
      assert.equal(reporter.stats().dropped.failed, 0);
    });

    test(`${name} twice: the batch is dropped and sending backs off`, async () => {
      const { timers, calls, logger, reporter, crawl, pathsOf, at } = setup([
        failure,
        failure,
      ]);
      crawl("/1", "/2");
      await timers.advance(INTERVAL + RETRY_DELAY);
      assert.equal(calls.length, 2);
      assert.equal(reporter.stats().dropped.failed, 2);
      assert.equal(logger.warnings.length, 1);
      crawl("/3");
      await timers.advance(BACKOFF - 1);
      assert.equal(calls.length, 2, "backing off");
      await timers.advance(1);
      assert.equal(calls.length, 3);
      assert.equal(at(2), INTERVAL + RETRY_DELAY + BACKOFF);
      assert.deepEqual(pathsOf(2), ["/3"]);
    });
  }

  test("a request that gets no answer times out after timeoutMs, is retried once, then dropped", async () => {
    const { timers, calls, logger, reporter, crawl, at } = setup([
      "hang",
      "hang",
    ]);
    crawl("/1");
    await timers.advance(INTERVAL + TIMEOUT);
    assert.equal(calls.length, 1);
    await timers.advance(RETRY_DELAY);
    assert.equal(calls.length, 2);
    assert.equal(at(1), INTERVAL + TIMEOUT + RETRY_DELAY);
    assert.equal(reporter.stats().queued, 1, "still in flight");
    await timers.advance(TIMEOUT);
    assert.equal(reporter.stats().dropped.failed, 1);
    assert.equal(reporter.stats().queued, 0);
    assert.match(logger.warnings[0], /timeout/);
  });

  test("a 429 on the retry keeps the batch instead of dropping it", async () => {
    const { timers, calls, reporter, crawl } = setup([500, {
      status: 429,
      headers: { "retry-after": "3" },
    }]);
    crawl("/1");
    await timers.advance(INTERVAL + RETRY_DELAY + 3_000);
    assert.equal(calls.length, 3);
    assert.equal(reporter.stats().sent, 1);
  });
});

describe("sender: any other 4xx drops the batch without retry", () => {
  for (const status of [400, 404, 409, 422]) {
    test(`${status}: one request, the hits are dropped, the next batch goes on schedule`, async () => {
      const { timers, calls, reporter, crawl, at } = setup([status]);
      crawl("/1", "/2");
      await timers.advance(INTERVAL);
      crawl("/3");
      await timers.advance(INTERVAL);
      assert.equal(calls.length, 2);
      assert.deepEqual(calls[1].body.events.map((e) => e.path), ["/3"]);
      assert.equal(at(1), 2 * INTERVAL, "no backoff");
      assert.equal(reporter.stats().dropped.rejected, 2);
      assert.equal(reporter.stats().sent, 1);
    });
  }
});

test("sender: a success resets the backoff", async () => {
  const { timers, calls, crawl, at } = setup([413, 202, 413]);
  crawl("/1");
  await timers.advance(INTERVAL); // 413 → pause BACKOFF
  crawl("/2");
  await timers.advance(BACKOFF); // 202
  crawl("/3");
  await timers.advance(INTERVAL); // 413 → pause BACKOFF again, not 2×
  crawl("/4");
  await timers.advance(BACKOFF);
  assert.equal(calls.length, 4);
  assert.equal(at(3) - at(2), BACKOFF);
});
