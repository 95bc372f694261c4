import assert from "node:assert/strict";
import { FakeDns, testDeps } from "../../helpers/deps.ts";
import { NotYetJudged, Verifier } from "../../../lib/crawl/verify.ts";
import {
  nameMatches,
  RDNS_CACHE_MS,
  RDNS_EMPTY_CACHE_MS,
  ReverseDnsChecker,
} from "../../../lib/crawl/rdns.ts";
import { refreshRanges } from "../../../lib/crawl/ranges/registry.ts";
import { RANGE_LISTS } from "../../../lib/crawl/ranges/lists.ts";

async function verifier(fetchImpl?: typeof fetch) {
  const dns = new FakeDns();
  const deps = await testDeps({ dns, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  return { deps, dns, v: new Verifier(deps) };
}

/** Puts a PTR and its forward answer into the fake DNS. */
function records(dns: FakeDns, ip: string, name: string, forward: string[] = [ip]) {
  dns.ptr.set(ip, [name]);
  dns.a.set(name, forward);
}

Deno.test("verify: an address in the vendor's published list is verified", async () => {
  const { v } = await verifier();
  assert.deepEqual(await v.verify("GPTBot", "20.171.206.10"), {
    outcome: "verified",
    method: "ip_list",
    reason: "in gptbot",
  });
  assert.equal((await v.verify("ClaudeBot", "216.73.216.5")).outcome, "verified");
});

Deno.test("verify: an address outside the vendor's published list is spoofed", async () => {
  const { v } = await verifier();
  const r = await v.verify("GPTBot", "203.0.113.5");
  assert.equal(r.outcome, "spoofed");
  assert.equal(r.method, "ip_list");
});

Deno.test("verify: a PTR name of the vendor confirmed by forward lookup is verified", async () => {
  const { v, dns } = await verifier();
  records(dns, "192.0.2.10", "crawler-1.crawl.amazonbot.amazon.");
  assert.deepEqual(await v.verify("Amazonbot", "192.0.2.10"), {
    outcome: "verified",
    method: "reverse_dns",
    reason: "PTR name confirmed by forward lookup",
  });
  // Google's name rule is a pattern: crawl-*.googlebot.com
  records(dns, "192.0.2.11", "crawl-192-0-2-11.googlebot.com");
  assert.equal((await v.verify("Googlebot", "192.0.2.11")).outcome, "verified");
  records(dns, "2001:db8::11", "crawl-x.googlebot.com", ["2001:0db8:0000::0011"]);
  assert.equal((await v.verify("Googlebot", "2001:db8::11")).outcome, "verified", "IPv6 compared by value");
});

Deno.test("verify: a PTR name that is not the vendor's is spoofed", async () => {
  const { v, dns } = await verifier();
  records(dns, "192.0.2.20", "crawl.amazonbot.amazon.evil.example");
  const r = await v.verify("Amazonbot", "192.0.2.20");
  assert.equal(r.outcome, "spoofed");
  assert.equal(r.method, "reverse_dns");
  assert.match(r.reason, /not the vendor's/);
  records(dns, "192.0.2.22", "googlebot.com.example.net");
  assert.equal((await v.verify("Googlebot", "192.0.2.22")).outcome, "spoofed");
});

Deno.test("verify: a vendor PTR name that does not resolve back to the address is spoofed", async () => {
  const { v, dns } = await verifier();
  records(dns, "192.0.2.30", "x.crawl.amazonbot.amazon", ["192.0.2.99"]);
  const r = await v.verify("Amazonbot", "192.0.2.30");
  assert.equal(r.outcome, "spoofed");
  assert.match(r.reason, /does not resolve back/);
});

Deno.test("verify: Baidu's reverse-only check needs no forward lookup", async () => {
  const { v, dns } = await verifier();
  dns.ptr.set("192.0.2.40", ["baiduspider-192-0-2-40.crawl.baidu.com"]);
  assert.equal((await v.verify("Baiduspider", "192.0.2.40")).outcome, "verified");
});

Deno.test("verify: an address on a CDN edge is unverifiable, but only after the vendor's check failed", async () => {
  const { v } = await verifier();
  const r = await v.verify("GPTBot", "104.16.1.1"); // Cloudflare edge
  assert.equal(r.outcome, "unverifiable");
  assert.match(r.reason, /cdn-cloudflare/);
  assert.equal((await v.verify("GPTBot", "151.101.1.1")).outcome, "unverifiable"); // Fastly
  assert.equal((await v.verify("GPTBot", "13.32.0.1")).reason.includes("CDN"), true); // CloudFront
});

Deno.test("verify: no address, a vendor with no documented check, or an unknown agent is unverifiable", async () => {
  const { v } = await verifier();
  assert.deepEqual(await v.verify("GPTBot", null), {
    outcome: "unverifiable",
    method: "none",
    reason: "no address",
  });
  assert.equal((await v.verify("Bytespider", "192.0.2.50")).reason, "vendor documents no check");
  assert.equal((await v.verify("unknown", "192.0.2.50")).reason, "unknown vendor");
  // a list we know of but hold no copy of (DuckAssistBot) cannot check anything
  assert.equal((await v.verify("DuckAssistBot", "192.0.2.50")).outcome, "unverifiable");
});

Deno.test("verify: reverse DNS answers are cached per (crawler, address) and expire", async () => {
  const { v, dns, deps } = await verifier();
  let lookups = 0;
  const reverse = dns.reverse.bind(dns);
  dns.reverse = (ip: string) => (lookups++, reverse(ip));
  records(dns, "192.0.2.60", "a.crawl.amazonbot.amazon");
  await v.verify("Amazonbot", "192.0.2.60");
  await v.verify("Amazonbot", "192.0.2.60");
  assert.equal(lookups, 1);
  await v.verify("PetalBot", "192.0.2.60");
  assert.equal(lookups, 2, "another crawler is another cache entry");
  deps.clock.advance(RDNS_CACHE_MS + 1);
  await v.verify("Amazonbot", "192.0.2.60");
  assert.equal(lookups, 3);
});

Deno.test("verify: name rules match suffixes on label boundaries and patterns label by label", () => {
  assert.ok(nameMatches("msnbot-1.search.msn.com.", "search.msn.com"));
  assert.ok(!nameMatches("evilsearch.msn.com", "search.msn.com"));
  assert.ok(nameMatches("rate-limited-proxy-66-249-90-1.google.com", "rate-limited-proxy-*.google.com"));
  assert.ok(!nameMatches("x.rate-limited-proxy-1.google.com", "rate-limited-proxy-*.google.com"));
  assert.ok(!nameMatches("1.gae.googleusercontent.com", "google-proxy-*.google.com"));
});

Deno.test("ip lists: a daily refresh replaces a list; a failed download keeps the last good one, also across instances", async () => {
  const gptbotUrl = RANGE_LISTS.find((l) => l.id === "gptbot")!.urls[0];
  const fakeInternet: typeof fetch = (input) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url === gptbotUrl) {
      return Promise.resolve(
        Response.json({ creationTime: "2026-11-20", prefixes: [{ ipv4Prefix: "198.51.100.0/24" }] }),
      );
    }
    if (url.includes("bing.com")) {
      return Promise.resolve(new Response("<html>maintenance</html>", { status: 200 }));
    }
    return Promise.resolve(new Response("down", { status: 503 }));
  };
  const { v, deps } = await verifier(fakeInternet);
  const outcomes = await refreshRanges(deps, v.ranges);
  assert.deepEqual(outcomes.find((o) => o.id === "gptbot"), { id: "gptbot", ok: true, count: 1 });
  assert.equal(outcomes.find((o) => o.id === "bingbot")!.ok, false, "an empty answer is not a list");
  assert.equal((await v.verify("GPTBot", "198.51.100.7")).outcome, "verified");
  assert.equal((await v.verify("GPTBot", "20.171.206.10")).outcome, "spoofed", "the old list is gone");
  assert.ok(v.ranges.get("bingbot").size > 0, "bingbot keeps its last good list");
  // another instance on the same KV takes the refreshed list
  const other = new Verifier(deps);
  assert.equal((await other.verify("GPTBot", "198.51.100.7")).outcome, "verified");
  assert.ok(deps.log.lines.every((l) => !l.includes("198.51.100")), "no address in the log");
});

Deno.test("verify: a DNS lookup that never answers fails the check run (retried later), it is not judged", async () => {
  const hanging = {
    reverse: () => new Promise<string[]>(() => {}),
    forward: () => Promise.resolve([]),
    txt: () => Promise.resolve([]),
  };
  const checker = new ReverseDnsChecker(hanging, 20);
  await assert.rejects(
    checker.check("Amazonbot", "192.0.2.70", ["crawl.amazonbot.amazon"], true, 0),
    /DNS lookup/,
  );
  assert.equal(checker.size, 0, "no answer is cached");
});

Deno.test("verify: an empty DNS answer (no PTR, or the vendor's name resolving to nothing) is not judged yet", async () => {
  // Deno reports a resolver's SERVFAIL or REFUSED as "no records", as it does a name that has none
  const { v, dns, deps } = await verifier();
  let lookups = 0;
  const reverse = dns.reverse.bind(dns);
  dns.reverse = (ip: string) => (lookups++, reverse(ip));
  await assert.rejects(v.verify("Amazonbot", "192.0.2.21"), (err: unknown) => {
    assert.ok(err instanceof NotYetJudged);
    assert.equal(err.outcome.outcome, "spoofed");
    assert.equal(err.outcome.reason, "no PTR record");
    return true;
  });
  dns.ptr.set("192.0.2.23", ["x.crawl.amazonbot.amazon"]); // the vendor's name, with no address behind it
  await assert.rejects(v.verify("Amazonbot", "192.0.2.23"), NotYetJudged);
  // an empty answer is asked again a minute on (not kept for the hour other answers are)
  await assert.rejects(v.verify("Amazonbot", "192.0.2.21"), NotYetJudged);
  assert.equal(lookups, 2, "kept within the minute");
  deps.clock.advance(RDNS_EMPTY_CACHE_MS + 1);
  records(dns, "192.0.2.21", "crawler-7.crawl.amazonbot.amazon.");
  assert.equal((await v.verify("Amazonbot", "192.0.2.21")).outcome, "verified", "the resolver answers again");
  // an address in no list, with no PTR, on a CDN edge is unverifiable at once, as before
  assert.equal((await v.verify("GPTBot", "104.16.1.1")).outcome, "unverifiable");
});
