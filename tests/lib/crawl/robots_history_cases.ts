import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { evaluateToken, readRobots, refreshRobots } from "../../../lib/crawl/robots.ts";
import { listVersions, type RobotsVersion, versionBody } from "../../../lib/crawl/robots_history.ts";
import { CACHE_GRACE_MS, judgingWindows } from "../../../lib/crawler_findings/robots_violations.ts";
import type { Touchpoint } from "../../../lib/store/records.ts";

const HOUR = 3_600_000;
const tp = {
  id: "tp1",
  kind: "website",
  environments: { production: { enabled: true, domain: "acme.test" } },
} as unknown as Touchpoint;

Deno.test("robots history: equal fetches extend a version, a change starts one, a failing fetch keeps the copy", async () => {
  const deps = await testDeps();
  const answers = [
    () => new Response("User-agent: *\nDisallow: /a\n"),
    () => new Response("User-agent: *\nDisallow: /a\n"),
    () => new Response("down", { status: 503 }),
    () => new Response("User-agent: *\nDisallow: /b\n"),
    () => new Response("none", { status: 404 }),
  ];
  const t0 = deps.clock.now();
  for (const answer of answers) {
    deps.fetch = () => Promise.resolve(answer());
    await refreshRobots(deps, "o1", tp, "production");
    deps.clock.advance(6 * HOUR);
  }
  const vs = await listVersions(deps.kv, "o1", "tp1", "production");
  assert.deepEqual(vs.map((v) => [v.since - t0, v.seen_until - t0, v.state]), [
    [0, 12 * HOUR, "rules"],
    [18 * HOUR, 18 * HOUR, "rules"],
    [24 * HOUR, 24 * HOUR, "allow_all"],
  ]);
  assert.equal(await versionBody(deps.kv, "o1", "tp1", "production", vs[1]), "User-agent: *\nDisallow: /b\n");
  assert.equal(await versionBody(deps.kv, "o1", "tp1", "production", vs[2]), null);
  deps.kv.close();
});

Deno.test("robots history: a robots.txt larger than one KV value is kept whole and still read", async () => {
  const deps = await testDeps();
  const filler = Array.from({ length: 6000 }, (_, i) => `Disallow: /generated/path-${i}/`).join("\n");
  const body = `User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\n${filler}\n`;
  assert.ok(body.length > 150_000);
  deps.fetch = () => Promise.resolve(new Response(body));
  await refreshRobots(deps, "o1", tp, "production");
  const rec = await readRobots(deps.kv, "o1", "tp1", "production");
  assert.equal(rec?.body, body);
  assert.equal(evaluateToken(rec, "GPTBot", [], "acme.test").access, "blocked");
  assert.equal(
    evaluateToken(rec, "bingbot", ["/generated/path-5999/x", "/ok"], "acme.test").access,
    "partly blocked",
  );
  // an unreachable server later: the large copy is still the one in force
  deps.clock.advance(6 * HOUR);
  deps.fetch = () => Promise.reject(new Error("connection refused"));
  await refreshRobots(deps, "o1", tp, "production");
  const again = await readRobots(deps.kv, "o1", "tp1", "production");
  assert.equal(again?.outcome, "unreachable");
  assert.equal(again?.body, body);
  assert.equal((await listVersions(deps.kv, "o1", "tp1", "production")).length, 1);
  deps.kv.close();
});

Deno.test("robots history: a version replaced more than 1,100 days ago is dropped with its body", async () => {
  const deps = await testDeps();
  const body = (n: number) => () => new Response(`User-agent: *\nDisallow: /v${n}\n`);
  const t0 = deps.clock.now();
  for (const [at, n] of [[0, 1], [10, 2], [1_200, 3]] as const) {
    deps.clock.set(t0 + at * 86_400_000);
    deps.fetch = () => Promise.resolve(body(n)());
    await refreshRobots(deps, "o1", tp, "production");
  }
  const left = await listVersions(deps.kv, "o1", "tp1", "production");
  // v1 was replaced 1,190 days before the last fetch: gone; v2 was replaced just now: kept
  assert.deepEqual(left.map((v) => (v.since - t0) / 86_400_000), [10, 1_200]);
  const chunks = [];
  for await (const c of deps.kv.list({ prefix: ["robots_body", "o1"] })) chunks.push(c.key);
  assert.equal(chunks.length, 2);
  deps.kv.close();
});

const v = (since: number, seen_until: number): RobotsVersion => ({
  since,
  seen_until,
  state: "rules",
  status: 200,
  hash: null,
  size: 0,
  chunks: 0,
});

Deno.test("robots violations: a version may apply from its predecessor's last sighting until 24 h after its successor", () => {
  const d = 24 * HOUR;
  const w = judgingWindows([v(0, 10 * d), v(12 * d, 20 * d), v(30 * d, 30 * d)]);
  assert.deepEqual(w, [
    { from: 0, to: 10 * d, versions: [0] },
    { from: 10 * d, to: 12 * d + CACHE_GRACE_MS, versions: [0, 1] },
    { from: 12 * d + CACHE_GRACE_MS, to: 20 * d, versions: [1] },
    { from: 20 * d, to: 30 * d + CACHE_GRACE_MS, versions: [1, 2] },
    { from: 30 * d + CACHE_GRACE_MS, to: Infinity, versions: [2] },
  ]);
  assert.deepEqual(judgingWindows([]), []);
});
