/**
 * A page is one page however its path is spelled (RFC 3986 §6.2.2): a crawler-hit path sent raw ("/café", as
 * nginx's $uri logs it), with lower-case escapes or dot segments reads the page visitors view at "/caf%C3%A9".
 * Before, visitors' paths went through the URL parser and hit paths were stored as sent, so crawl coverage
 * listed pages GPTBot read as never read. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";

/** [the path visitors' pages send, the path a crawler hit sends for the same page] */
const SPELLINGS: [string, string][] = [
  ["/café", "/café"],
  ["/über-uns", "/%c3%bcber-uns"],
  ["/docs/x", "/docs/./x"],
  ["/e%41", "/eA"],
  ["/a b", "/a%20b?ref=x"],
];

Deno.test("behavior_crawl_coverage: a hit path spelled raw, with lower-case escapes or dot segments reads its page", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    let visitor = 0;
    for (const [seen] of SPELLINGS) {
      for (let i = 0; i < 6; i++, visitor++) {
        assert.equal((await site.ingest([pageview(visitor, 0, seen)])).status, 204);
      }
    }
    const gptbot = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; " +
      "+https://openai.com/gptbot)";
    const hits = await site.serverEvents(SPELLINGS.map(([, p]) => ({
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      host: "acme.test",
      path: p,
      status: 200,
      user_agent: gptbot,
    })));
    assert.equal(hits.status, 202);
    const a = await site.read("behavior_crawl_coverage", { period: "last_7_days" });
    assert.deepEqual(a.pages_never_read, [], "GPTBot read every page");
    assert.equal(a.summary.known_pages, SPELLINGS.length);
    assert.equal(a.crawlers[0].pages_read, SPELLINGS.length);
  } finally {
    await site.close();
  }
});
