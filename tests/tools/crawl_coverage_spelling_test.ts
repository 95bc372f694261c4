/**
 * A page is one page however its path is spelled (RFC 3986 §6.2.2): a crawler-hit path sent raw ("/café", as
 * nginx's $uri logs it), with lower-case escapes or dot segments reads the page visitors view at "/caf%C3%A9".
 * Before, visitors' paths went through the URL parser and hit paths were stored as sent, so crawl coverage
 * listed pages GPTBot read as never read. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

/** [the path visitors' pages send, the path a crawler hit sends for the same page] */
const SPELLINGS: [string, string][] = [
  ["/café", "/café"],
  ["/über-uns", "/%c3%bcber-uns"],
  ["/docs/x", "/docs/./x"],
  ["/e%41", "/eA"],
  ["/a b", "/a%20b?ref=x"],
];

Deno.test("behavior_crawl_coverage: a hit path spelled raw, with lower-case escapes or dot segments reads its page", async () => {
  const file = await Deno.makeTempFile({ suffix: ".sqlite3" });
  const kv = await Deno.openKv(file);
  try {
    const deps = await testDeps({ kv });
    deps.config = { ...deps.config, trustProxy: true };
    deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    let visitor = 0;
    for (const [seen] of SPELLINGS) {
      for (let i = 0; i < 6; i++, visitor++) {
        const res = await app.request("/v1/behavior/events", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "https://acme.test",
            "x-forwarded-for": `81.2.69.${visitor + 1}`,
            "user-agent":
              "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
              "Chrome/130.0.0.0 Safari/537.36",
          },
          body: JSON.stringify({
            api_key: t.publicKey,
            batch: [{
              event_id: crypto.randomUUID(),
              anonymous_id: `v${visitor}`,
              session_id: `s${visitor}`,
              sequence_no: 0,
              platform: "web",
              event_type: "$pageview",
              screen: seen,
              properties: { path: seen, url: `https://acme.test${seen}` },
              device_time: "2026-11-18T10:00:00.000Z",
            }],
          }),
        });
        assert.equal(res.status, 204);
      }
    }
    const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; " +
      "+https://openai.com/gptbot)";
    const hits = await app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { authorization: `Bearer ${t.serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        events: SPELLINGS.map(([, p]) => ({
          event_type: "$crawl",
          event_id: crypto.randomUUID(),
          host: "acme.test",
          path: p,
          status: 200,
          user_agent: gptbot,
        })),
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
    assert.deepEqual(a.pages_never_read, [], "GPTBot read every page");
    assert.equal(a.summary.known_pages, SPELLINGS.length);
    assert.equal(a.crawlers[0].pages_read, SPELLINGS.length);
  } finally {
    kv.close();
    await Deno.remove(file);
  }
});
