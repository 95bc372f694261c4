/**
 * The server SDK behind a proxy (trustProxy) reporting into POST /v1/behavior/server-events: a client that
 * writes a crawler's address into its own X-Forwarded-For is stored with the address the proxy saw, so a fake
 * Googlebot is never verified; a real one the proxy forwards still is.
 */
import assert from "node:assert/strict";
import { createCrawlReporter, type TrustProxy } from "../../sdk/server/src/index.ts";
import { setup } from "./server_events_helpers.ts";

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const GOOGLE = "66.249.66.1"; // in Google's published list: verified at arrival
const SPOOFER = "203.0.113.50";

/** Reports one request, as the proxy forwarded it, through a real reporter into the app; returns its stored hit. */
async function reportThrough(
  t: Awaited<ReturnType<typeof setup>>,
  headers: Record<string, string>,
  trustProxy: TrustProxy = true,
  ipHeader?: string,
) {
  const reporter = createCrawlReporter({
    serverKey: t.tenant.serverKey,
    baseUrl: "https://collect.test",
    fetch: async (url, init) => await t.app.request(new URL(url).pathname, init),
    trustProxy,
    ipHeader,
    logger: { warn: () => {}, error: () => {} },
  });
  reporter.observe(
    {
      method: "GET",
      url: "/pricing",
      headers: new Headers({
        host: "acme.test",
        "user-agent": GOOGLEBOT,
        ...headers,
      }),
      socketIp: "10.0.0.2",
    },
    { status: 200, contentType: "text/html" },
  );
  await reporter.shutdown();
  assert.equal(reporter.stats().service.accepted, 1);
  const stored = await t.storedHits();
  const hit = stored[stored.length - 1];
  return { verification: hit.verification, ip: await t.addressOf(hit) };
}

Deno.test("server events via the SDK: a client-written X-Forwarded-For does not make a fake Googlebot verified", async () => {
  const spoofedXff = `${GOOGLE}, ${SPOOFER}`;
  const styles: Record<string, Record<string, string>> = {
    nginx: { "x-forwarded-for": spoofedXff, "x-real-ip": SPOOFER },
    cloudflare: { "x-forwarded-for": spoofedXff, "cf-connecting-ip": SPOOFER },
    "append only": { "x-forwarded-for": spoofedXff },
    // a load balancer that only appends passes the client's own edge headers through
    "append only, client edge headers": {
      "x-forwarded-for": spoofedXff,
      "cf-connecting-ip": GOOGLE,
      "true-client-ip": GOOGLE,
      "fly-client-ip": GOOGLE,
      "x-real-ip": GOOGLE,
    },
    "client Forwarded": {
      "x-forwarded-for": spoofedXff,
      forwarded: `for=${GOOGLE}`,
    },
  };
  for (const [name, headers] of Object.entries(styles)) {
    const t = await setup();
    try {
      const got = await reportThrough(t, headers);
      assert.equal(got.ip, SPOOFER, `${name}: the address the proxy saw`);
      assert.notEqual(got.verification, "verified", name);
    } finally {
      t.deps.kv.close();
    }
  }
});

Deno.test("server events via the SDK: a real Googlebot behind the proxy is still verified", async () => {
  const cases: [Record<string, string>, TrustProxy, string?][] = [
    [{ "x-forwarded-for": GOOGLE, "x-real-ip": GOOGLE }, true],
    [{ "x-forwarded-for": GOOGLE, "cf-connecting-ip": GOOGLE }, true],
    [{ "x-forwarded-for": `${SPOOFER}, ${GOOGLE}` }, true],
    // two proxies (CDN, then the site's load balancer): the CDN's entry is second from the end
    [{ "x-forwarded-for": `${SPOOFER}, ${GOOGLE}, 10.0.0.9` }, 2],
    // the edge header the site owner named: the one Cloudflare sets, even with a client-written X-Forwarded-For
    [{ "x-forwarded-for": `${SPOOFER}, 10.0.0.9`, "cf-connecting-ip": GOOGLE }, true, "cf-connecting-ip"],
  ];
  for (const [headers, trustProxy, ipHeader] of cases) {
    const t = await setup();
    try {
      const got = await reportThrough(t, headers, trustProxy, ipHeader);
      assert.equal(got.ip, GOOGLE, JSON.stringify(headers));
      assert.equal(got.verification, "verified", JSON.stringify(headers));
    } finally {
      t.deps.kv.close();
    }
  }
});
