/**
 * A user agent claiming a known crawler, sent through the browser ingest endpoint (which anyone holding the
 * site's public key can call), is a claim: the spec counts crawler visits by verified hits, and labels what
 * was not verified. Before, behavior_overview counted such events as AI agent visits and ranked the claimed
 * crawler among the top agents, merged with the crawler's server-reported (verifiable) requests.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
  "Chrome/130.0.0.0 Safari/537.36";

Deno.test("behavior_overview: a crawler claimed through the web SDK is not presented as a verified AI agent visit", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z"), config: { trustProxy: true } });
  try {
    for (let i = 0; i < 6; i++) {
      const res = await s.ingest([pageview(i, 0, "/pricing")], {
        headers: { "x-forwarded-for": `81.2.69.${i + 1}`, "user-agent": CHROME },
      });
      assert.equal(res.status, 204);
    }
    // three "GPTBot" pageviews from an address that is no OpenAI address
    const spoof = await s.ingest([
      pageview(90, 0, "/pricing"),
      pageview(90, 1, "/docs"),
      pageview(90, 2, "/"),
    ], {
      headers: { "x-forwarded-for": "81.2.69.200", "user-agent": GPTBOT },
    });
    assert.equal(spoof.status, 204);
    const a = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.equal(a.visitors.value, 6);
    // not among AI agent visits or top agents, which are the server-reported, checked crawler figures
    assert.equal(a.bots_and_ai_agents.ai_agent_events, undefined);
    assert.equal(a.bots_and_ai_agents.ai_crawler_requests.value, 0);
    assert.deepEqual(a.top_agents, []);
    // shown as what it is: events whose agent claims an AI agent, unverified, with a notice saying so
    assert.equal(a.bots_and_ai_agents.claimed_ai_agent_events.value, 3);
    assert.ok(
      a.notices.some((n: string) => /3 events .* claim an AI agent .*not verified/.test(n)),
      a.notices,
    );
    // a crawler the server SDK reports is still ranked, by its requests
    const hit = await s.serverEvents([{
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: "/pricing",
      status: 200,
      user_agent: GPTBOT,
    }]);
    assert.equal(hit.status, 202);
    const b = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.deepEqual(b.top_agents, [{ crawler: "GPTBot", kind: "ai_agent", requests: 1 }]);
  } finally {
    await s.close();
  }
});
