/**
 * Crawl coverage goes by path: a crawler reading "/pricing?page=2" (a query the server SDK's allowlist
 * kept) read the page visitors know as "/pricing". Before, the page was listed as never read and each query
 * variant counted as a page of its own. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

Deno.test("behavior_crawl_coverage: a hit with a query string or fragment reads the page without it", async () => {
  const path = await Deno.makeTempFile({ suffix: ".sqlite3" });
  const kv = await Deno.openKv(path);
  try {
    const deps = await testDeps({ kv });
    deps.config = { ...deps.config, trustProxy: true };
    deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const page = (visitor: number, seq: number, p: string) => ({
      event_id: crypto.randomUUID(),
      anonymous_id: `v${visitor}`,
      session_id: `s${visitor}`,
      sequence_no: seq,
      platform: "web",
      event_type: "$pageview",
      screen: p,
      properties: { path: p, url: `https://acme.test${p}` },
      device_time: "2026-11-18T10:00:00.000Z",
    });
    for (let i = 0; i < 12; i++) {
      const res = await app.request("/v1/behavior/events", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: "https://acme.test",
          "x-forwarded-for": `81.2.69.${i + 1}`,
          "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
            "Chrome/130.0.0.0 Safari/537.36",
        },
        body: JSON.stringify({ api_key: t.publicKey, batch: [page(i, 0, "/pricing"), page(i, 1, "/docs")] }),
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
    const hits = await app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { authorization: `Bearer ${t.serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        events: [
          hit("/pricing?page=2", googlebot),
          hit("/pricing?page=3", googlebot),
          hit("/docs#install", googlebot),
          hit("/pricing?lang=de", gptbot),
        ],
      }),
    });
    assert.equal(hits.status, 202);
    const res = await app.request("/v1/read/behavior_crawl_coverage", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "last_7_days" }),
    });
    assert.equal(res.status, 200);
    const a = await res.json();
    assert.deepEqual(a.pages_never_read, [], "both pages were read");
    assert.equal(a.summary.known_pages, 2, "/pricing and /docs; no query variant is a page of its own");
    assert.equal(a.summary.pages_read_by_search, 2);
    const pricing = a.crawl_to_referral.pages.filter((p: { page: string }) => p.page.startsWith("/pricing"));
    assert.deepEqual(pricing.map((p: { page: string; ai_reads: number }) => [p.page, p.ai_reads]), [[
      "/pricing",
      1,
    ]]);
  } finally {
    kv.close();
    await Deno.remove(path).catch(() => {});
  }
});
