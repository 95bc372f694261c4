/**
 * Googlebot read "requests 267" in behavior_crawler_access's crawler list and "requests 288" under spoofed agents
 * (found by an outside check of the demo): the list leaves spoofed requests out, the spoofed section counted all
 * requests claiming the name, under one label. Now the spoofed section says which is which:
 * `requests_claiming_name` = `requests_not_spoofed` (the list's `requests`) + `spoofed_requests`. Hits sent
 * through the server-events ingest, checked by the verification sweep, asked through HTTP and MCP (its text).
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { sweepPendingVerifications } from "../../lib/jobs/verify.ts";
import { openSite } from "../helpers/site.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";
const hit = (ip: string, path: string) => ({
  event_type: "$crawl",
  event_id: crypto.randomUUID(),
  host: "acme.test",
  path,
  status: 200,
  user_agent: GPTBOT,
  ip,
});

Deno.test("behavior_crawler_access: a crawler's requests in the list and under spoofed agents add up, labelled", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    // 3 from OpenAI's published addresses (verified on arrival), 2 from an address that fails the check
    const sent = await site.serverEvents([
      hit("20.171.206.10", "/a"),
      hit("20.171.206.10", "/b"),
      hit("20.171.206.11", "/c"),
      hit("203.0.113.9", "/a"),
      hit("203.0.113.9", "/wp-login.php"),
    ]);
    assert.equal(sent.status, 202);
    site.deps.clock.advance(6 * 60_000);
    assert.deepEqual(await sweepPendingVerifications(site.app.ctx), { verified: 2, failed: 0 });

    const a = await site.read("behavior_crawler_access", { crawler: "GPTBot" });
    assert.equal(a.crawlers[0].requests, 3, "the list: requests not spoofed");
    assert.equal(a.spoofed_agents.length, 1);
    const s = a.spoofed_agents[0];
    assert.equal(s.crawler, "GPTBot");
    assert.equal(s.spoofed_requests, 2);
    assert.equal(s.requests_not_spoofed, a.crawlers[0].requests);
    assert.equal(s.requests_claiming_name, 5);
    assert.equal(s.requests_claiming_name, s.requests_not_spoofed + s.spoofed_requests);
    assert.equal(s.share, 0.4);
    assert.ok(!("requests" in s), "no bare `requests` that reads like the list's");

    const client = new Client({ name: "spoofed", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: (url, init) => Promise.resolve(site.app.fetch(new Request(url, init))),
        requestInit: { headers: { authorization: `Bearer ${site.t.readKey}` } },
      }),
    );
    const res = await client.callTool({ name: "behavior_crawler_access", arguments: { crawler: "GPTBot" } });
    await client.close();
    assert.ok(!res.isError);
    assert.deepEqual(res.structuredContent, a);
    const text = (res.content as { text: string }[]).map((c) => c.text).join("\n");
    assert.match(text, /- crawler GPTBot vendor OpenAI: .*requests 3(,|$)/m);
    assert.match(
      text,
      /spoofed agents .*\n- crawler GPTBot vendor OpenAI: .*requests claiming name 5, spoofed requests 2, requests not spoofed 3, share 40%/,
    );
  } finally {
    await site.close();
  }
});
