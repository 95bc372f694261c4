/** Each adapter in front of a real handler: what reaches the reporter, and that the host's answer is untouched. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import {
  type CrawlReporter,
  createCrawlReporter,
  expressCrawlReporter,
  honoCrawlReporter,
  withCrawlReporting,
  withNodeCrawlReporting,
} from "../src/index.ts";
import { CHROME, collectingLogger, FakeTimers, GOOGLEBOT, scriptedEndpoint } from "./support.ts";

function setup() {
  const timers = new FakeTimers();
  const endpoint = scriptedEndpoint(timers);
  const reporter = createCrawlReporter({
    serverKey: "svc_sk_dev_adapter_test_1",
    baseUrl: "https://collect.test",
    fetch: endpoint.fetch,
    timers,
    logger: collectingLogger(),
  });
  const sentHits = async () => {
    await reporter.flush();
    return endpoint.calls.flatMap((c) => c.body.events);
  };
  return { reporter, sentHits };
}

const html = (body: string, status = 200) =>
  new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8" },
  });

describe("adapter: fetch-style handler (Deno.serve, Bun, workers)", () => {
  test("reports crawler page views with Deno's remote address and leaves the response untouched", async () => {
    const { reporter, sentHits } = setup();
    const handler = withCrawlReporting(
      reporter,
      (req: Request, _info: { remoteAddr: { hostname: string } }) => {
        const path = new URL(req.url).pathname;
        return path === "/missing" ? html("nope", 404) : html(`<h1>${path}</h1>`);
      },
    );
    const info = { remoteAddr: { hostname: "66.249.66.1" } };
    const headers = { "user-agent": GOOGLEBOT };
    const res = await handler(
      new Request("http://acme.test/docs?session=abc", { headers }),
      info,
    );
    assert.equal(await res.text(), "<h1>/docs</h1>");
    await handler(new Request("http://acme.test/missing", { headers }), info);
    await handler(
      new Request("http://acme.test/docs", {
        headers: { "user-agent": CHROME },
      }),
      info,
    );
    const hits = await sentHits();
    assert.deepEqual(hits.map((h) => [h.host, h.path, h.status, h.ip]), [
      ["acme.test", "/docs", 200, "66.249.66.1"],
      ["acme.test", "/missing", 404, "66.249.66.1"],
    ]);
  });

  test("takes Bun's server.requestIP", async () => {
    const { reporter, sentHits } = setup();
    const handler = withCrawlReporting(
      reporter,
      (_req: Request, _server: unknown) => html("ok"),
    );
    const bunServer = {
      requestIP: () => ({ address: "40.77.167.1", family: "IPv4", port: 5555 }),
    };
    await handler(
      new Request("http://acme.test/", {
        headers: { "user-agent": GOOGLEBOT },
      }),
      bunServer,
    );
    assert.equal((await sentHits())[0].ip, "40.77.167.1");
  });

  test("a handler that throws is reported with an unknown status and its error reaches the host unchanged", async () => {
    const { reporter, sentHits } = setup();
    const failure = new Error("handler failed");
    const handler = withCrawlReporting(reporter, () => {
      throw failure;
    });
    await assert.rejects(
      handler(
        new Request("http://acme.test/x", {
          headers: { "user-agent": GOOGLEBOT },
        }),
      ),
      failure,
    );
    const hits = await sentHits();
    assert.equal(hits.length, 1);
    assert.equal(hits[0].status, null);
  });
});

describe("adapter: Hono middleware", () => {
  test("reports after the route answered, with the final status and type", async () => {
    const { reporter, sentHits } = setup();
    const app = new Hono();
    app.use("*", honoCrawlReporter(reporter));
    app.get("/", (c) => c.html("<h1>home</h1>"));
    app.get("/old", (c) => c.redirect("/", 301));
    app.get("/robots.txt", (c) => c.text("User-agent: *\nAllow: /"));
    app.get("/api/items", (c) => c.json([]));
    app.get("/data", (c) => c.json({ a: 1 }));
    app.notFound((c) => c.html("<h1>Not found</h1>", 404));
    const get = (path: string, ua: string) =>
      app.request(`http://acme.test${path}`, { headers: { "user-agent": ua } });
    assert.equal((await get("/", GOOGLEBOT)).status, 200);
    await get("/old", GOOGLEBOT);
    await get("/robots.txt", "GPTBot/1.1");
    await get("/api/items", GOOGLEBOT);
    await get("/data", GOOGLEBOT);
    await get("/", CHROME);
    await get("/nowhere", GOOGLEBOT);
    const hits = await sentHits();
    assert.deepEqual(hits.map((h) => [h.path, h.status, h.user_agent]), [
      ["/", 200, GOOGLEBOT],
      ["/old", 301, GOOGLEBOT],
      ["/robots.txt", 200, "GPTBot/1.1"],
      ["/nowhere", 404, GOOGLEBOT],
    ]);
    assert.equal(reporter.stats().skipped.browser, 1);
    assert.equal(reporter.stats().skipped.path, 1);
    assert.equal(reporter.stats().skipped.content_type, 1);
  });
});

/** Starts a node:http server on a random port and returns its base URL and a closer. */
async function listen(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Each finished request ends up either skipped or counted as a hit; this counts both. */
function observedCount(reporter: CrawlReporter): number {
  const s = reporter.stats();
  const sum = (counts: object) => Object.values(counts).reduce((a: number, b: number) => a + b, 0);
  return s.queued + s.sent + sum(s.dropped) + sum(s.skipped);
}

/** Node reports on the server's "finish" event, which may come after the client has read the answer. */
async function get(reporter: CrawlReporter, url: string, headers: Record<string, string>): Promise<string> {
  const before = observedCount(reporter);
  const res = await fetch(url, { headers });
  const text = await res.text();
  for (let waited = 0; observedCount(reporter) === before && waited < 5_000; waited += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return text;
}

describe("adapter: Node http.createServer", () => {
  test("reports once the response has finished, with socket address and Host, query removed", async () => {
    const { reporter, sentHits } = setup();
    const server = await listen(withNodeCrawlReporting(reporter, (req, res) => {
      if (req.url === "/style.css") {
        res.setHeader("content-type", "text/css");
        res.end("body{}");
        return;
      }
      res.statusCode = req.url?.startsWith("/gone") ? 410 : 200;
      res.setHeader("content-type", "text/html");
      res.end("<p>hi</p>");
    }));
    try {
      assert.equal(
        await get(reporter, `${server.url}/about?ref=x`, { "user-agent": GOOGLEBOT }),
        "<p>hi</p>",
      );
      await get(reporter, `${server.url}/gone`, { "user-agent": "curl/8.5.0" });
      await get(reporter, `${server.url}/style.css`, { "user-agent": GOOGLEBOT });
      await get(reporter, `${server.url}/about`, { "user-agent": CHROME });
    } finally {
      await server.close();
    }
    const hits = await sentHits();
    assert.deepEqual(hits.map((h) => [h.path, h.status, h.ip]), [
      ["/about", 200, "127.0.0.1"],
      ["/gone", 410, "127.0.0.1"],
    ]);
    assert.equal(
      hits[0].host,
      "127.0.0.1",
      "from the Host header, without the port",
    );
  });
});

describe("adapter: Express/Connect middleware", () => {
  test("uses originalUrl, trusts X-Forwarded-For only when told, and always calls next", async () => {
    const timers = new FakeTimers();
    const endpoint = scriptedEndpoint(timers);
    const reporter = createCrawlReporter({
      serverKey: "svc_sk_dev_adapter_test_1",
      baseUrl: "https://collect.test",
      fetch: endpoint.fetch,
      timers,
      trustProxy: true,
      logger: collectingLogger(),
    });
    const middleware = expressCrawlReporter(reporter);
    let nextCalls = 0;
    // What Express does: a router strips its mount path from req.url and keeps the full target in originalUrl.
    const server = await listen((req, res) => {
      const expressReq = Object.assign(req, { originalUrl: req.url });
      req.url = req.url?.replace(/^\/blog/, "") || "/";
      middleware(expressReq, res, () => {
        nextCalls++;
        res.writeHead(200, { "content-type": "text/html" });
        res.end("post");
      });
    });
    try {
      await get(reporter, `${server.url}/blog/first-post`, {
        "user-agent": GOOGLEBOT,
        // the client wrote the first hop; the trusted proxy appended the peer it saw
        "x-forwarded-for": "10.0.0.1, 66.249.66.9",
      });
    } finally {
      await server.close();
    }
    await reporter.flush();
    const hits = endpoint.calls.flatMap((c) => c.body.events);
    assert.equal(nextCalls, 1);
    assert.deepEqual(hits.map((h) => [h.path, h.ip]), [[
      "/blog/first-post",
      "66.249.66.9",
    ]]);
  });
});
