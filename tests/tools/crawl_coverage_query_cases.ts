/**
 * Crawl coverage goes by path: a crawler reading "/pricing?page=2" (a query the server SDK's allowlist
 * kept) read the page visitors know as "/pricing". Before, the page was listed as never read and each query
 * variant counted as a page of its own. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { event } from "../helpers/events.ts";
import { openSite } from "../helpers/site.ts";

Deno.test("behavior_crawl_coverage: a hit with a query string or fragment reads the page without it", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T10:00:00Z"), config: { trustProxy: true } });
  try {
    const page = (visitor: number, seq: number, p: string) =>
      event({
        anonymous_id: `v${visitor}`,
        session_id: `s${visitor}`,
        sequence_no: seq,
        screen: p,
        properties: { path: p, url: `https://acme.test${p}` },
        device_time: "2026-11-18T10:00:00.000Z",
      });
    for (let i = 0; i < 12; i++) {
      const res = await s.ingest([page(i, 0, "/pricing"), page(i, 1, "/docs")], {
        headers: {
          "x-forwarded-for": `81.2.69.${i + 1}`,
          "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
            "Chrome/130.0.0.0 Safari/537.36",
        },
      });
      assert.equal(res.status, 204);
    }
    const hit = (p: string, agent: string) => ({
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: p,
      status: 200,
      user_agent: agent,
    });
    const googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; " +
      "+https://openai.com/gptbot)";
    const hits = await s.serverEvents([
      hit("/pricing?page=2", googlebot),
      hit("/pricing?page=3", googlebot),
      hit("/docs#install", googlebot),
      hit("/pricing?lang=de", gptbot),
    ]);
    assert.equal(hits.status, 202);
    const a = await s.read("behavior_crawl_coverage", { period: "last_7_days" });
    assert.deepEqual(a.pages_never_read, [], "both pages were read");
    assert.equal(a.summary.known_pages, 2, "/pricing and /docs; no query variant is a page of its own");
    assert.equal(a.summary.pages_read_by_search, 2);
    const pricing = a.crawl_to_referral.pages.filter((p: { page: string }) => p.page.startsWith("/pricing"));
    assert.deepEqual(pricing.map((p: { page: string; ai_reads: number }) => [p.page, p.ai_reads]), [[
      "/pricing",
      1,
    ]]);
  } finally {
    await s.close();
  }
});
