import assert from "node:assert/strict";
import { FakeDns, testDeps } from "../../helpers/deps.ts";
import {
  evaluateToken,
  fetchRobots,
  refreshAllRobots,
  type RobotsRecord,
} from "../../../lib/crawl/robots.ts";
import { keys } from "../../../lib/store/keys.ts";

const rec = (body: string): RobotsRecord => ({
  url: "https://acme.test/robots.txt",
  fetched_at: 0,
  status: 200,
  outcome: "ok",
  error: null,
  body,
  body_fetched_at: 0,
});

const ROBOTS = `
User-agent: *
Disallow: /private

User-agent: ClaudeBot
Disallow: /blog/

User-agent: Googlebot
Disallow: /docs
Allow: /docs

User-agent: claudebot
Disallow: /pricing

User-agent: Google-Extended
User-agent: GPTBot
Disallow: /
`;

Deno.test("robots: an Allow and a Disallow of the same length tie, and Allow wins (RFC 9309 2.2.2)", () => {
  const a = evaluateToken(rec(ROBOTS), "Googlebot", ["/docs", "/docs/setup"], "acme.test");
  assert.equal(a.group, "own");
  assert.equal(a.access, "allowed");
  assert.equal(a.paths_disallowed, 0);
});

Deno.test("robots: groups naming the same crawler are merged, case-insensitively", () => {
  const a = evaluateToken(rec(ROBOTS), "ClaudeBot", ["/blog/launch", "/pricing", "/contact"], "acme.test");
  assert.equal(a.access, "partly blocked");
  assert.deepEqual(a.disallowed_examples, ["/blog/launch", "/pricing"]);
  assert.equal(a.home_allowed, true);
});

Deno.test("robots: robots-only tokens and crawlers without a group of their own", () => {
  const ext = evaluateToken(rec(ROBOTS), "Google-Extended", ["/pricing"], "acme.test");
  assert.equal(ext.group, "own");
  assert.equal(ext.access, "blocked");
  const gpt = evaluateToken(rec(ROBOTS), "GPTBot", [], "acme.test");
  assert.equal(gpt.access, "blocked", "a group line listing two agents applies to both");
  const bing = evaluateToken(rec(ROBOTS), "bingbot", ["/private/x", "/pricing"], "acme.test");
  assert.equal(bing.group, "*");
  assert.deepEqual(bing.disallowed_examples, ["/private/x"]);
  const longest = evaluateToken(
    rec("User-agent: *\nDisallow: /a\nAllow: /a/b\n"),
    "x",
    ["/a/b/c", "/a/c"],
    "h.test",
  );
  assert.deepEqual(longest.disallowed_examples, ["/a/c"], "the longest match decides");
});

Deno.test("robots: 4xx means everything allowed, 5xx or no answer everything disallowed unless a copy is kept", async () => {
  const deps = await testDeps();
  const answer = (status: number, body = "") => {
    deps.fetch = () => Promise.resolve(new Response(body, { status }));
  };
  answer(404);
  const missing = await fetchRobots(deps, "acme.test", null);
  assert.equal(missing.outcome, "unavailable");
  assert.equal(evaluateToken(missing, "GPTBot", ["/x"], "acme.test").access, "allowed");
  answer(503);
  const down = await fetchRobots(deps, "acme.test", null);
  assert.equal(down.outcome, "unreachable");
  assert.equal(evaluateToken(down, "GPTBot", ["/x"], "acme.test").access, "blocked");
  answer(200, "User-agent: *\nDisallow: /x\n");
  const good = await fetchRobots(deps, "acme.test", null);
  deps.clock.advance(86_400_000);
  deps.fetch = () => Promise.reject(new TypeError("connection refused"));
  const kept = await fetchRobots(deps, "acme.test", good);
  assert.equal(kept.outcome, "unreachable");
  assert.equal(kept.body_fetched_at, good.fetched_at);
  assert.equal(evaluateToken(kept, "GPTBot", ["/y"], "acme.test").access, "allowed", "the kept copy applies");
  deps.clock.advance(31 * 86_400_000);
  const tooOld = await fetchRobots(deps, "acme.test", kept);
  assert.equal(tooOld.body, null, "a copy older than 30 days is dropped");
  deps.kv.close();
});

Deno.test("robots: the scheduled job fetches each enabled website environment and stores the result", async () => {
  const deps = await testDeps();
  const asked: string[] = [];
  deps.fetch = (input) => {
    asked.push(String(input));
    return Promise.resolve(new Response("User-agent: *\nDisallow:\n"));
  };
  await deps.kv.set(keys.org("o1"), {
    id: "o1",
    name: "O",
    plan: "professional",
    timezone: "UTC",
    active: true,
    created_at: "",
  });
  await deps.kv.set(keys.touchpoint("o1", "t1"), {
    id: "t1",
    org: "o1",
    name: "Site",
    kind: "website",
    archived: false,
    environments: {
      production: { domain: "acme.test", enabled: true },
      staging: { domain: "stg.acme.test", enabled: false },
    },
    created_at: "",
  });
  assert.equal(await refreshAllRobots(deps), 1);
  assert.deepEqual(asked, ["https://acme.test/robots.txt"]);
  const stored = (await deps.kv.get<RobotsRecord>(keys.robots("o1", "t1", "production"))).value;
  assert.equal(stored?.outcome, "ok");
  deps.kv.close();
});

Deno.test("robots: never fetched from a private, loopback or link-local address, directly or through a redirect", async () => {
  const deps = await testDeps();
  const asked: string[] = [];
  const dns = deps.dns as FakeDns;
  dns.a.set("inside.example", ["10.0.0.7"]);
  dns.a.set("shop.example", ["93.184.216.34"]);
  deps.fetch = (input) => {
    const url = String(input);
    asked.push(url);
    if (url === "https://shop.example/robots.txt") {
      return Promise.resolve(
        new Response(null, {
          status: 301,
          headers: { location: "http://169.254.169.254/latest/meta-data/" },
        }),
      );
    }
    if (url === "https://moved.example/robots.txt") {
      return Promise.resolve(new Response(null, { status: 302, headers: { location: "/robots-new.txt" } }));
    }
    return Promise.resolve(new Response("User-agent: *\nDisallow: /private\n"));
  };
  for (const domain of ["127.0.0.1", "localhost", "inside.example", "[::1]"]) {
    const r = await fetchRobots(deps, domain, null);
    assert.equal(r.outcome, "unreachable", domain);
    assert.match(r.error ?? "", /not fetched: .*(loopback|private or reserved)/, domain);
  }
  const redirected = await fetchRobots(deps, "shop.example", null);
  assert.equal(redirected.outcome, "unreachable");
  assert.match(redirected.error ?? "", /169\.254\.169\.254 resolves to a private or reserved address/);
  assert.deepEqual(asked, ["https://shop.example/robots.txt"], "the metadata address was never asked");
  // a redirect within public addresses is followed, by hand
  const moved = await fetchRobots(deps, "moved.example", null);
  assert.equal(moved.outcome, "ok");
  assert.deepEqual(asked.slice(1), [
    "https://moved.example/robots.txt",
    "https://moved.example/robots-new.txt",
  ]);
  deps.kv.close();
});
