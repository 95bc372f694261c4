import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CrawlHit, createCrawlReporter, type ReporterOptions } from "../src/index.ts";
import {
  collectingLogger,
  FakeTimers,
  GOOGLEBOT,
  scriptedEndpoint,
  seen,
  type SeenOptions,
  UUID,
} from "./support.ts";

/** Reports one request through a real reporter and returns the hit as it went over the wire. */
async function reportOne(
  url: string,
  o: SeenOptions = {},
  options: Partial<ReporterOptions> = {},
  ua = GOOGLEBOT,
): Promise<CrawlHit> {
  const timers = new FakeTimers();
  const endpoint = scriptedEndpoint(timers);
  const reporter = createCrawlReporter({
    serverKey: "svc_sk_prod_test_key_123",
    baseUrl: "https://collect.test",
    fetch: endpoint.fetch,
    timers,
    logger: collectingLogger(),
    ...options,
  });
  const [req, res] = seen(url, ua, o);
  reporter.observe(req, res, timers.now() - 250);
  await reporter.flush();
  assert.equal(endpoint.calls.length, 1);
  assert.equal(endpoint.calls[0].body.events.length, 1);
  return endpoint.calls[0].body.events[0];
}

describe("hit fields", () => {
  test("a hit carries exactly the CrawlEvent fields", async () => {
    const hit = await reportOne("/pricing", {
      status: 200,
      headers: {
        host: "www.acme.test",
        referer: "https://news.example/story?id=7#top",
      },
    });
    assert.deepEqual(Object.keys(hit).sort(), [
      "event_id",
      "event_type",
      "host",
      "ip",
      "method",
      "path",
      "referer_host",
      "status",
      "timestamp",
      "user_agent",
    ]);
    assert.equal(hit.event_type, "$crawl");
    assert.match(hit.event_id, UUID);
    assert.equal(
      hit.timestamp,
      "2026-11-20T11:59:59.750Z",
      "the time the request arrived",
    );
    assert.equal(hit.host, "www.acme.test");
    assert.equal(hit.path, "/pricing");
    assert.equal(hit.method, "GET");
    assert.equal(hit.status, 200);
    assert.equal(hit.user_agent, GOOGLEBOT);
    assert.equal(hit.ip, "203.0.113.7");
    assert.equal(hit.referer_host, "news.example");
  });

  test("the port is dropped from the host and the host is lower-cased", async () => {
    assert.equal(
      (await reportOne("/", { headers: { host: "ACME.test:8443" } })).host,
      "acme.test",
    );
    assert.equal(
      (await reportOne("/", { headers: { host: "[::1]:8000" } })).host,
      "[::1]",
    );
  });

  test("the host comes from an absolute request URL when there is no Host header", async () => {
    const hit = await reportOne("https://shop.acme.test:8080/cart-page", {
      headers: { host: "" },
    });
    assert.equal(hit.host, "shop.acme.test");
  });

  test("query parameters are removed unless allowlisted", async () => {
    assert.equal(
      (await reportOne("/search?q=jane%40mail.test&page=2&utm_source=x")).path,
      "/search",
    );
    const kept = await reportOne("/search?q=jane&page=2&lang=de&page=3", {}, {
      queryAllowlist: ["page", "lang"],
    });
    assert.equal(kept.path, "/search?page=2&lang=de&page=3");
  });

  test("the path is cut to 1024 characters and the user agent to 512", async () => {
    const longPath = "/" + "a".repeat(2000);
    const longUa = "Mozilla/5.0 (compatible; LongBot/1.0; +http://long.test/" +
      "x".repeat(700) + ")";
    const hit = await reportOne(longPath, {}, {}, longUa);
    assert.equal(hit.path.length, 1024);
    assert.equal(hit.user_agent.length, 512);
    assert.equal(hit.user_agent, longUa.slice(0, 512));
  });

  test("final status and method are carried as sent; a null status stays null", async () => {
    assert.equal((await reportOne("/moved", { status: 301 })).status, 301);
    assert.equal(
      (await reportOne("/p", { status: null, contentType: null })).status,
      null,
    );
    assert.equal((await reportOne("/p", { method: "head" })).method, "HEAD");
  });

  test("a referer gives only its host, and a malformed or missing one gives null", async () => {
    assert.equal(
      (await reportOne("/", { headers: { referer: "not a url" } }))
        .referer_host,
      null,
    );
    assert.equal((await reportOne("/")).referer_host, null);
    const hit = await reportOne("/", {
      headers: { referer: "https://user:pw@Search.Example:8080/path?q=secret" },
    });
    assert.equal(hit.referer_host, "search.example");
  });
});

describe("hit fields: client address", () => {
  // As a proxy forwards a request from 198.51.100.9 that came without forwarding headers of its own.
  const forwarded = {
    "x-forwarded-for": "198.51.100.9",
    "x-forwarded-host": "www.acme.test",
  };
  // A crawler's address (Google's published list) a client wrote itself before the proxy appended the real one.
  const SPOOFED = "66.249.66.1";
  const REAL = "203.0.113.50";

  test("forwarding headers are ignored unless the proxy is trusted", async () => {
    const hit = await reportOne("/", {
      headers: { ...forwarded, host: "internal:3000" },
      socketIp: "10.0.0.2",
    });
    assert.equal(hit.ip, "10.0.0.2");
    assert.equal(hit.host, "internal");
  });

  test("with trustProxy the X-Forwarded-For hop and X-Forwarded-Host the proxy added are used", async () => {
    const hit = await reportOne("/", {
      headers: { ...forwarded, host: "internal:3000" },
      socketIp: "10.0.0.2",
    }, {
      trustProxy: true,
    });
    assert.equal(hit.ip, "198.51.100.9");
    assert.equal(hit.host, "www.acme.test");
  });

  test("a client-written X-Forwarded-For hop is never taken (nginx, Cloudflare, load balancer)", async () => {
    const xff = `${SPOOFED}, ${REAL}`;
    const cases: Record<string, Record<string, string>> = {
      // nginx: proxy_add_x_forwarded_for appends the peer, X-Real-IP set to it
      nginx: { "x-forwarded-for": xff, "x-real-ip": REAL },
      // Cloudflare appends to the client's X-Forwarded-For and sets CF-Connecting-IP
      cloudflare: { "x-forwarded-for": xff, "cf-connecting-ip": REAL },
      // a load balancer that only appends (AWS ALB, nginx without X-Real-IP)
      "append only": { "x-forwarded-for": xff },
      "Fly.io": { "x-forwarded-for": xff, "fly-client-ip": REAL },
      "Akamai": { "x-forwarded-for": xff, "true-client-ip": REAL },
      // the client also wrote a Forwarded header the proxy passed through untouched
      "client Forwarded": {
        "x-forwarded-for": xff,
        forwarded: `for=${SPOOFED}`,
      },
    };
    for (const [name, headers] of Object.entries(cases)) {
      const hit = await reportOne("/", { headers, socketIp: "10.0.0.2" }, {
        trustProxy: true,
      });
      assert.equal(hit.ip, REAL, name);
    }
  });

  test("an edge header is read only when named (ipHeader), and only behind a trusted proxy", async () => {
    // a load balancer that only appends to X-Forwarded-For passes the client's own edge headers through
    const headers = {
      "x-forwarded-for": `${SPOOFED}, ${REAL}`,
      "cf-connecting-ip": SPOOFED,
      "true-client-ip": SPOOFED,
      "fly-client-ip": SPOOFED,
      "x-real-ip": SPOOFED,
    };
    const ip = async (options: Partial<ReporterOptions>) =>
      (await reportOne("/", { headers, socketIp: "10.0.0.2" }, options)).ip;
    assert.equal(await ip({ trustProxy: true }), REAL, "unset: no edge header is read");
    assert.equal(await ip({ trustProxy: true, ipHeader: "CF-Connecting-IP" }), SPOOFED, "named: it is read");
    assert.equal(await ip({ ipHeader: "cf-connecting-ip" }), "10.0.0.2", "no trusted proxy: the socket");
    // Cloudflare Workers: no socket address, the one header Cloudflare sets
    const worker = { headers: { "cf-connecting-ip": REAL }, socketIp: null };
    assert.equal((await reportOne("/", worker, { trustProxy: true, ipHeader: "cf-connecting-ip" })).ip, REAL);
    assert.equal((await reportOne("/", worker, { trustProxy: true })).ip, null, "unset: none");
  });

  test("with trustProxy the last RFC 7239 Forwarded element is used when there is no X-Forwarded-For", async () => {
    const headers = {
      forwarded: `for=${SPOOFED}, for="[2001:db8::7]:4711";proto=https`,
    };
    assert.equal(
      (await reportOne("/", { headers }, { trustProxy: true })).ip,
      "2001:db8::7",
    );
  });

  test("trustProxy as a number counts that many proxies from the end and ignores single-value headers", async () => {
    const headers = {
      "x-forwarded-for": `${SPOOFED}, ${REAL}, 10.0.0.3`,
      "x-real-ip": SPOOFED,
      "cf-connecting-ip": SPOOFED,
    };
    const ip = async (trustProxy: number) =>
      (await reportOne("/", { headers, socketIp: "10.0.0.2" }, { trustProxy }))
        .ip;
    assert.equal(await ip(1), "10.0.0.3");
    assert.equal(await ip(2), REAL);
    assert.equal(await ip(0), "10.0.0.2", "no proxy trusted: the socket");
    assert.equal(
      await ip(5),
      SPOOFED,
      "fewer hops than proxies: the first (every hop came from a trusted proxy)",
    );
  });

  test("with trustProxy but no forwarding header the socket address is used", async () => {
    assert.equal(
      (await reportOne("/", { socketIp: "192.0.2.4" }, { trustProxy: true }))
        .ip,
      "192.0.2.4",
    );
  });

  test("IPv4-mapped socket addresses are unwrapped and a missing one is null", async () => {
    assert.equal(
      (await reportOne("/", { socketIp: "::ffff:192.0.2.5" })).ip,
      "192.0.2.5",
    );
    assert.equal((await reportOne("/", { socketIp: null })).ip, null);
  });
});
