/**
 * Before robots.txt was ever fetched, what it allows is unknown: behavior_crawler_access said "access allowed",
 * "paths disallowed 0" for every crawler and "ai crawlers blocked 0" as facts (found by an outside check of the
 * demo). Now access reads "unknown (robots.txt not fetched yet)" and the counts are null, in the JSON (valid by
 * the tool's output schema, which MCP clients check) and in the text. Through HTTP and MCP on a real KV file,
 * crawler hits sent through the server-events ingest.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { refreshRobots } from "../../lib/crawl/robots.ts";
import { TOOLS } from "../../tools/registry.ts";
import { openSite, type Site } from "../helpers/site.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";
const UNKNOWN = "unknown (robots.txt not fetched yet)";

async function mcp(site: Site) {
  const client = new Client({ name: "access", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(site.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${site.t.readKey}` } },
    }),
  );
  return client;
}

const textOf = (res: { content?: unknown }) =>
  (res.content as { type: string; text: string }[]).filter((c) => c.type === "text").map((c) => c.text).join(
    "\n",
  );

Deno.test("behavior_crawler_access: before robots.txt is fetched, access is unknown and blocked counts are null", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    const sent = await site.serverEvents([{
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: "/pricing",
      status: 200,
      user_agent: GPTBOT,
      ip: "20.171.206.10",
    }]);
    assert.equal(sent.status, 202);
    const a = await site.read("behavior_crawler_access", {});
    assert.equal(a.robots_txt.outcome, "not_fetched_yet");
    assert.ok(a.crawlers.length > 10);
    for (const c of a.crawlers) {
      assert.equal(c.access, UNKNOWN, c.crawler);
      assert.equal(c.home_allowed, null, c.crawler);
      assert.equal(c.paths_disallowed, null, c.crawler);
      assert.equal(c.paths_checked, null, c.crawler);
      assert.equal(c.disallowed_examples, null, c.crawler);
    }
    assert.equal(a.summary.ai_crawlers_blocked, null);
    assert.equal(a.summary.ai_crawlers_partly_blocked, null);
    assert.equal(a.summary.search_crawlers_blocked, null);
    assert.equal(a.summary.crawlers_with_refusals, 0, "refusals come from hits, known without robots.txt");
    assert.ok(!a.notices.some((n: string) => /counts as allowed/.test(n)), a.notices.join(" | "));
    const tool = TOOLS.find((t) => t.name === "behavior_crawler_access")!;
    assert.deepEqual(checkAnswer(a, { identifiers: [], output: tool.output }), []);

    // The same through MCP: the client checks structuredContent against the output schema; the text says unknown.
    const client = await mcp(site);
    const res = await client.callTool({ name: "behavior_crawler_access", arguments: {} });
    assert.ok(!res.isError, textOf(res));
    assert.deepEqual(res.structuredContent, a);
    const text = textOf(res);
    assert.match(text, /access unknown \(robots\.txt not fetched yet\)/);
    assert.doesNotMatch(text, /access allowed/);
    assert.doesNotMatch(text, /paths disallowed 0/);
    assert.doesNotMatch(text, /blocked 0/);
    assert.doesNotMatch(text, /home allowed/);
    assert.doesNotMatch(text, /disallowed examples none/);
    await client.close();

    // Once fetched, access is judged again.
    site.deps.fetch = () =>
      Promise.resolve(new Response("User-agent: GPTBot\nDisallow: /\n", { status: 200 }));
    await refreshRobots(
      site.deps,
      site.t.org,
      (await site.app.ctx.directory.touchpoints(site.t.org))[0],
      "production",
    );
    const b = await site.read("behavior_crawler_access", {});
    const by = (t: string) => b.crawlers.find((c: { crawler: string }) => c.crawler === t);
    assert.equal(by("GPTBot").access, "blocked");
    assert.equal(by("GPTBot").home_allowed, false);
    assert.equal(by("GPTBot").paths_disallowed, by("GPTBot").paths_checked);
    assert.equal(by("ClaudeBot").access, "allowed");
    assert.equal(by("ClaudeBot").paths_disallowed, 0);
    assert.equal(b.summary.ai_crawlers_blocked, 1);
    assert.deepEqual(checkAnswer(b, { identifiers: [], output: tool.output }), []);
  } finally {
    await site.close();
  }
});
