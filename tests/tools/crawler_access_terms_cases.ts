/**
 * behavior_crawler_access said "not robots only, group none" of a crawler (found by an outside check of the
 * demo): words a person cannot read. Now `robots_txt_group` names which group of robots.txt rules applies to the
 * crawler (its own, the * group, none) and `token_used_by` whether a crawler sends the token or only robots.txt
 * uses it (Google-Extended). Through HTTP and MCP (its text) on a real KV file.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { refreshRobots } from "../../lib/crawl/robots.ts";
import { openSite, type Site } from "../helpers/site.ts";

async function mcpText(site: Site, tool: string, args: Record<string, unknown>) {
  const client = new Client({ name: "terms", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(site.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${site.t.readKey}` } },
    }),
  );
  const res = await client.callTool({ name: tool, arguments: args });
  await client.close();
  assert.ok(!res.isError);
  return (res.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
}

async function robots(site: Site, body: string) {
  site.deps.fetch = () => Promise.resolve(new Response(body, { status: 200 }));
  const tp = (await site.app.ctx.directory.touchpoints(site.t.org))[0];
  await refreshRobots(site.deps, site.t.org, tp, "production");
}

Deno.test("behavior_crawler_access: the robots.txt group that applies and who uses a token, in words", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    const before = await site.read("behavior_crawler_access", {});
    for (const c of before.crawlers) {
      assert.equal(c.robots_txt_group, "unknown (robots.txt not fetched yet)", c.crawler);
    }
    await robots(site, "User-agent: GPTBot\nDisallow: /\n");
    const a = await site.read("behavior_crawler_access", {});
    const by = (x: { crawlers: { crawler: string }[] }, t: string) =>
      x.crawlers.find((c) => c.crawler === t) as Record<string, unknown>;
    assert.equal(by(a, "GPTBot").robots_txt_group, "its own (a User-agent line names it)");
    assert.equal(by(a, "ClaudeBot").robots_txt_group, "none");
    assert.equal(by(a, "GPTBot").token_used_by, "crawler");
    assert.equal(by(a, "Google-Extended").token_used_by, "robots.txt only");
    for (const c of a.crawlers) {
      assert.ok(!("group" in c) && !("robots_only" in c), JSON.stringify(c));
    }
    const text = await mcpText(site, "behavior_crawler_access", {});
    assert.match(
      text,
      /crawler GPTBot vendor OpenAI: .*token used by crawler, robots txt group its own \(a User-agent line names it\)/,
    );
    assert.match(text, /crawler ClaudeBot vendor Anthropic: .*robots txt group none,/);
    assert.match(text, /crawler Google-Extended vendor Google: .*token used by robots\.txt only/);
    assert.doesNotMatch(text, /robots only|(?<!robots txt )group (none|own|\*)/);

    await robots(site, "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n");
    const b = await site.read("behavior_crawler_access", {});
    assert.equal(by(b, "GPTBot").robots_txt_group, "its own (a User-agent line names it)");
    assert.equal(by(b, "ClaudeBot").robots_txt_group, "* (for all crawlers)");
    assert.match(
      await mcpText(site, "behavior_crawler_access", {}),
      /robots txt group \* \(for all crawlers\)/,
    );
  } finally {
    await site.close();
  }
});
