import assert from "node:assert/strict";
import { refreshRobots } from "../../lib/crawl/robots.ts";
import { harness } from "./harness.ts";
import { LAST7 } from "./expect.ts";

const ROBOTS = `User-agent: *
Disallow: /private

User-agent: ClaudeBot
Disallow: /blog/

User-agent: GPTBot
User-agent: Google-Extended
Disallow: /

User-agent: claudebot
Disallow: /pricing
`;

Deno.test("behavior_crawler_access: robots.txt per crawler token, robots-only tokens, refusals per crawler", async () => {
  const h = await harness();
  const before = await h.ask("behavior_crawler_access", {});
  assert.equal(before.robots_txt.outcome, "not_fetched_yet");
  assert.ok(before.notices.some((n: string) => /not been fetched yet/.test(n)));
  h.deps.fetch = (url) => {
    assert.equal(String(url), "https://acme.test/robots.txt");
    return Promise.resolve(new Response(ROBOTS, { status: 200 }));
  };
  const tps = await h.app.ctx.directory.touchpoints(h.t.org);
  await refreshRobots(h.deps, h.t.org, tps[0], "production");
  const a = await h.ask("behavior_crawler_access", {});
  assert.equal(a.robots_txt.outcome, "ok");
  const by = (t: string) => a.crawlers.find((c: { crawler: string }) => c.crawler === t);
  assert.equal(by("GPTBot").access, "blocked");
  assert.equal(by("Google-Extended").access, "blocked");
  assert.equal(by("Google-Extended").token_used_by, "robots.txt only");
  assert.equal(by("Applebot-Extended").access, "allowed");
  assert.equal(by("ClaudeBot").access, "partly blocked");
  assert.deepEqual(
    by("ClaudeBot").disallowed_examples.every((p: string) => p.startsWith("/blog/") || p === "/pricing"),
    true,
  );
  assert.equal(by("Googlebot").robots_txt_group, "* (for all crawlers)");
  assert.equal(
    a.summary.ai_crawlers_blocked,
    a.crawlers.filter((c: { ai: boolean; access: string }) => c.ai && c.access === "blocked").length,
  );
  assert.ok(a.summary.ai_crawlers_blocked >= 2);
  // Refusals from the hits of the last 7 days, spoofed hits left out.
  const hits = h.site.hits.filter((x) =>
    x.timestamp >= LAST7.from && x.timestamp < LAST7.to && x.verification !== "spoofed"
  );
  for (const r of a.refusals) {
    const mine = hits.filter((x) => x.crawler === r.crawler);
    assert.equal(r.requests, mine.length);
    assert.equal(r.refused_403, mine.filter((x) => x.status === 403).length);
    assert.equal(r.refused_429, mine.filter((x) => x.status === 429).length);
    assert.equal(r.failed_5xx, mine.filter((x) => (x.status ?? 0) >= 500).length);
  }
  const withRefusals = new Set(
    hits.filter((x) => [401, 403, 429].includes(x.status ?? 0) || (x.status ?? 0) >= 500).map((x) =>
      x.crawler
    ),
  );
  assert.equal(a.refusals_total, withRefusals.size);
  h.close();
});

Deno.test("behavior_crawler_access: `requests` is described as what it counts (server SDK hits only)", async () => {
  const h = await harness();
  const res = await h.app.request("/v1/read", { headers: { authorization: `Bearer ${h.t.readKey}` } });
  const { tools } = await res.json();
  const tool = tools.find((t: { name: string }) => t.name === "behavior_crawler_access");
  const requests = tool.output_schema.properties.crawlers.items.properties.requests;
  assert.match(requests.description, /server SDK/);
  assert.doesNotMatch(requests.description, /server SDK and web SDK/);
  // ... and the figure is the server hits only (the generated site's hits all came through the server SDK).
  const a = await h.ask("behavior_crawler_access", { period: "last_7_days" });
  const from = Date.parse("2026-11-14T00:00:00Z");
  const to = Date.parse("2026-11-20T12:00:00Z") + 1;
  for (const c of a.crawlers) {
    const hits = h.site.hits.filter((x) =>
      x.crawler === c.crawler && x.timestamp >= from && x.timestamp < to && x.verification !== "spoofed" &&
      x.via === "server"
    );
    assert.equal(c.requests, hits.length, c.crawler);
  }
  h.close();
});
