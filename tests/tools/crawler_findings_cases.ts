/**
 * robots.txt violations judged by the rules of their time, spoofed agents and crawl-to-referral, on a
 * generated site plus hits placed by hand around robots.txt changes, so the answers are known in advance.
 * Asked through HTTP and MCP; both answers go through the answer-rule checker.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { refreshRobots } from "../../lib/crawl/robots.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredHit, Verification } from "../../lib/store/records.ts";
import { TOOLS } from "../../tools/registry.ts";
import { DAY, LAST7 } from "./expect.ts";
import { NOW } from "./generate.ts";
import { type Harness, harness } from "./harness.ts";

const HOUR = 3_600_000;
const LAST30 = { from: Date.parse("2026-10-22T00:00:00Z"), to: LAST7.to };
const F1 = NOW - 20 * DAY; // first robots.txt: GPTBot kept out of /secret
const F2 = NOW - 10 * DAY; // second: GPTBot kept out of /members, everyone else out of /secret
const F3 = NOW - 2 * DAY; // robots.txt answers 404: everything allowed
const V1 = "User-agent: GPTBot\nDisallow: /secret\n";
const V2 = "User-agent: GPTBot\nDisallow: /members\n\nUser-agent: *\nDisallow: /secret\n";

const CRAWLER = {
  GPTBot: { vendor: "OpenAI", category: "ai_training" },
  ClaudeBot: { vendor: "Anthropic", category: "ai_training" },
  PerplexityBot: { vendor: "Perplexity", category: "ai_search" },
} as const;

let n = 0;
function hit(h: Harness, crawler: keyof typeof CRAWLER, path: string, t: number, v: Verification): StoredHit {
  return {
    ...h.site.hits[0],
    id: `20000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
    received_at: t,
    timestamp: t,
    path,
    status: 200,
    crawled: true,
    site_file: null,
    crawler,
    ...CRAWLER[crawler],
    user_agent: `${crawler}/1.0`,
    verification: v,
  };
}

async function fetchAt(h: Harness, t: number, answer: () => Response) {
  h.deps.clock.set(t);
  h.deps.fetch = () => Promise.resolve(answer());
  const tp = (await h.app.ctx.directory.touchpoints(h.t.org))[0];
  await refreshRobots(h.deps, h.t.org, tp, "production");
}

/** The site, three robots.txt versions (one refresh failing in between) and the hand-placed hits. */
async function setup() {
  const h = await harness();
  const mine = [
    hit(h, "GPTBot", "/secret/a", NOW - 25 * DAY, "verified"), // before the first fetch: not judged
    hit(h, "GPTBot", "/secret/a", NOW - 18 * DAY, "verified"), // V1 alone: violation (today's file allows it)
    hit(h, "GPTBot", "/members/x", NOW - 18 * DAY, "verified"), // allowed by V1
    hit(h, "ClaudeBot", "/secret/a", NOW - 18 * DAY, "verified"), // allowed by V1 (today's * group refuses)
    hit(h, "GPTBot", "/secret/a", NOW - 18 * DAY, "spoofed"), // not judged
    hit(h, "PerplexityBot", "/secret/a", NOW - 18 * DAY, "unverifiable"), // not judged
    hit(h, "GPTBot", "/secret/b", F2 - 3 * HOUR, "verified"), // V1 or V2 may apply; V2 allows: none
    hit(h, "GPTBot", "/members/y", F2 + 2 * HOUR, "verified"), // within 24 h of V2: V1 allowed it: none
    hit(h, "GPTBot", "/members/y", F2 + 2 * DAY, "verified"), // V2 alone: violation
    hit(h, "ClaudeBot", "/secret/c", F2 + 2 * DAY, "verified"), // V2's * group: violation
    hit(h, "GPTBot", "/secret/d", F2 + 2 * DAY, "verified"), // V2 allows GPTBot /secret
    hit(h, "ClaudeBot", "/secret/f", F3 + 2 * HOUR, "verified"), // within 24 h of the 404: none
    hit(h, "ClaudeBot", "/secret/e", NOW - 12 * HOUR, "verified"), // everything allowed
  ];
  const tx = h.deps.kv.atomic();
  for (const x of mine) tx.set(keys.rawHit(x.org, x.env, x.received_at, x.id), x);
  await tx.commit();
  const ok = (body: string) => () => new Response(body, { status: 200 });
  await fetchAt(h, F1, ok(V1));
  await fetchAt(h, F1 + 6 * HOUR, ok(V1));
  await fetchAt(h, F2 - 6 * HOUR, ok(V1));
  await fetchAt(h, F2, ok(V2));
  await fetchAt(h, F2 + 6 * HOUR, () => new Response("busy", { status: 503 })); // the kept copy applies
  await fetchAt(h, F3 - 6 * HOUR, ok(V2)); // the last sighting of V2: the change came after it
  await fetchAt(h, F3, () => new Response("gone", { status: 404 }));
  h.deps.clock.set(NOW);
  return { h, hits: [...h.site.hits, ...mine], mine };
}

Deno.test("crawler findings: violations by the robots.txt of the time, spoofed agents, through HTTP", async () => {
  const { h, hits, mine } = await setup();
  const a = await h.ask("behavior_crawler_access", { period: "last_30_days" });
  const v = a.robots_violations;
  assert.deepEqual(v.robots_versions.map((x: { state: string }) => x.state), ["rules", "rules", "allow_all"]);
  assert.equal(v.robots_versions[0].from, new Date(F1).toISOString());
  assert.equal(v.robots_versions[0].to, new Date(F2).toISOString());
  assert.equal(v.robots_versions[2].to, null);
  assert.equal(v.judged_from, new Date(F1).toISOString());
  const gpt = v.crawlers.find((c: { crawler: string }) => c.crawler === "GPTBot");
  const claude = v.crawlers.find((c: { crawler: string }) => c.crawler === "ClaudeBot");
  assert.equal(v.crawlers_total, 2);
  assert.deepEqual([gpt.requests, gpt.pages, gpt.example_pages], [2, 2, ["/members/y", "/secret/a"]]);
  assert.equal(gpt.first_seen_at, new Date(NOW - 18 * DAY).toISOString());
  assert.equal(gpt.last_seen_at, new Date(F2 + 2 * DAY).toISOString());
  assert.deepEqual([claude.requests, claude.example_pages], [1, ["/secret/c"]]);
  assert.deepEqual(
    v.pages.map((p: { page: string; crawlers: string[] }) => [p.page, p.crawlers]).sort(),
    [["/members/y", ["GPTBot"]], ["/secret/a", ["GPTBot"]], ["/secret/c", ["ClaudeBot"]]],
  );
  // What was not judged, computed plainly from every hit of the period.
  const pages = hits.filter((x) =>
    x.site_file === null && x.timestamp >= LAST30.from && x.timestamp < LAST30.to
  );
  assert.deepEqual(v.not_judged, {
    before_first_fetch: pages.filter((x) => x.verification === "verified" && x.timestamp < F1).length,
    unverifiable_or_pending: pages.filter((x) => ["unverifiable", "pending"].includes(x.verification)).length,
    spoofed: pages.filter((x) => x.verification === "spoofed").length,
  });
  assert.ok(v.not_judged.before_first_fetch >= 1);
  assert.ok(a.notices.some((s: string) => /verified crawlers only/.test(s)));
  // One crawler asked alone.
  const one = await h.ask("behavior_crawler_access", { period: "last_30_days", crawler: "ClaudeBot" });
  assert.deepEqual(one.robots_violations.crawlers.map((c: { crawler: string }) => c.crawler), ["ClaudeBot"]);
  // Spoofed agents: GPTBot only, with its share of every GPTBot request in the period.
  const inPeriod = hits.filter((x) => x.timestamp >= LAST30.from && x.timestamp < LAST30.to);
  const gptAll = inPeriod.filter((x) => x.crawler === "GPTBot");
  const gptSpoofed = gptAll.filter((x) => x.verification === "spoofed");
  assert.deepEqual(a.spoofed_agents.map((s: { crawler: string }) => s.crawler), ["GPTBot"]);
  const s = a.spoofed_agents[0];
  assert.equal(s.spoofed_requests, gptSpoofed.length);
  assert.equal(s.requests_claiming_name, gptAll.length);
  assert.equal(s.requests_not_spoofed, gptAll.length - gptSpoofed.length);
  assert.equal(s.share, Math.round(gptSpoofed.length / gptAll.length * 1e4) / 1e4);
  assert.equal(
    s.pages,
    new Set(gptSpoofed.filter((x) => x.crawled && x.site_file === null).map((x) => x.path)).size,
  );
  assert.ok(mine.length > 0);
  const tool = TOOLS.find((t) => t.name === "behavior_crawler_access")!;
  assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output: tool.output }), []);
  h.close();
});

Deno.test("crawler findings: before any robots.txt fetch nothing is judged, and the answer says so", async () => {
  const h = await harness();
  const a = await h.ask("behavior_crawler_access", { period: "last_30_days" });
  assert.equal(a.robots_violations.judged_from, null);
  assert.equal(a.robots_violations.crawlers_total, 0);
  assert.ok(a.notices.some((s: string) => /no request could be judged/.test(s)));
  h.close();
});

Deno.test("crawler findings: crawl-to-referral per AI vendor and page, through HTTP and MCP alike", async () => {
  const { h, hits } = await setup();
  const a = await h.ask("behavior_crawl_coverage", { period: "last_30_days" });
  const c = a.crawl_to_referral;
  const reads = hits.filter((x) =>
    x.timestamp >= LAST30.from && x.timestamp < LAST30.to && x.verification !== "spoofed" && x.crawled &&
    x.site_file === null && x.category.startsWith("ai_")
  );
  const events = h.site.events.filter((e) =>
    e.traffic === "human" && e.received_at >= LAST30.from && e.received_at < LAST30.to &&
    e.channel === "AI Assistant"
  );
  const visitorsOf = (source: string) =>
    new Set(events.filter((e) => e.source === source).map((e) => e.anonymous_id)).size;
  const openai = c.vendors.find((v: { vendor: string }) => v.vendor === "OpenAI");
  const gptReads = reads.filter((x) => x.vendor === "OpenAI");
  assert.equal(openai.training_reads, gptReads.length);
  assert.equal(openai.ai_reads, gptReads.length);
  assert.equal(openai.pages_read, new Set(gptReads.map((x) => x.path)).size);
  assert.equal(openai.training_pages, openai.pages_read, "GPTBot is OpenAI's only crawler on this site");
  assert.equal(openai.search_pages, 0);
  assert.equal(openai.referred_visitors, visitorsOf("ChatGPT"));
  assert.ok(openai.referred_visitors > 0);
  assert.equal(openai.sends_visitors, true);
  assert.equal(
    openai.reads_per_referred_visitor,
    Math.round(gptReads.length / visitorsOf("ChatGPT") * 10) / 10,
  );
  // Anthropic's crawlers read but Claude sends nobody on this site; Perplexity is counted as search reads.
  const anthropic = c.vendors.find((v: { vendor: string }) => v.vendor === "Anthropic");
  assert.equal(anthropic.referred_visitors, 0);
  assert.equal(anthropic.reads_per_referred_visitor, null);
  assert.equal(anthropic.sends_visitors, false);
  const perplexity = c.vendors.find((v: { vendor: string }) => v.vendor === "Perplexity");
  assert.equal(perplexity.search_reads, reads.filter((x) => x.vendor === "Perplexity").length);
  assert.equal(
    perplexity.search_pages,
    new Set(reads.filter((x) => x.vendor === "Perplexity").map((x) => x.path)).size,
  );
  assert.equal(perplexity.referred_visitors, visitorsOf("Perplexity"));
  // Google: Googlebot's reads are beside the ratio, never in it.
  const google = c.vendors.find((v: { vendor: string }) => v.vendor === "Google");
  assert.equal(google, undefined, "no Gemini visitors and no Google AI crawler: not listed");
  // Pages Anthropic read that Claude never sent a visitor to: all of them, most read first.
  const claudePages = new Map<string, number>();
  for (const x of reads.filter((x) => x.vendor === "Anthropic")) {
    claudePages.set(x.path, (claudePages.get(x.path) ?? 0) + 1);
  }
  const never = c.read_never_referred.filter((p: { vendor: string }) => p.vendor === "Anthropic");
  assert.deepEqual(
    Object.fromEntries(never.map((p: { page: string; ai_reads: number }) => [p.page, p.ai_reads])),
    Object.fromEntries([...claudePages].filter(([p]) => never.some((x: { page: string }) => x.page === p))),
  );
  assert.equal(never.length, Math.min(claudePages.size, 25));
  // Per page: a page's ChatGPT visitors are those whose session began there.
  const entry = new Map<string, Set<string>>();
  for (const sess of new Set(events.filter((e) => e.source === "ChatGPT").map((e) => e.session_id))) {
    const first = events.filter((e) => e.session_id === sess && e.event_type === "$pageview")
      .sort((x, y) => x.received_at - y.received_at)[0];
    if (first) entry.set(first.path, (entry.get(first.path) ?? new Set()).add(first.anonymous_id));
  }
  for (const p of c.pages.filter((p: { vendor: string }) => p.vendor === "OpenAI")) {
    assert.equal(p.referred_visitors, entry.get(p.page)?.size ?? 0, p.page);
    assert.equal(p.ai_reads, gptReads.filter((x) => x.path === p.page).length, p.page);
  }
  const tool = TOOLS.find((t) => t.name === "behavior_crawl_coverage")!;
  assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output: tool.output }), []);

  // The same questions over MCP give the same structured answers.
  const client = new Client({ name: "findings-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  for (const tool of ["behavior_crawl_coverage", "behavior_crawler_access"]) {
    const input = { period: "last_30_days" };
    const res = await client.callTool({ name: tool, arguments: input });
    assert.deepEqual(res.structuredContent, await h.ask(tool, input), tool);
  }
  await client.close();
  h.close();
});
