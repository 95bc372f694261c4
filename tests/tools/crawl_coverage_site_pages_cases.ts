/**
 * behavior_crawl_coverage listed crawler-only paths with 0 pageviews (/wp-login.php, /old-pricing) as "pages never
 * read" (found by an outside check of the demo). A page no crawler read is a page people visit: the list holds
 * pages with pageviews in the period. Paths only crawlers asked for and never got (a 404, or only spoofed agents'
 * requests) are no site pages and no known pages either. Hits through the server-events ingest, the verification
 * sweep, pageviews through the events ingest, asked through the read API on a real KV file.
 */
import assert from "node:assert/strict";
import { sweepPendingVerifications } from "../../lib/jobs/verify.ts";
import { openSite, pageview } from "../helpers/site.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";
const hit = (ip: string, path: string, status = 200) => ({
  event_type: "$crawl",
  event_id: crypto.randomUUID(),
  host: "acme.test",
  path,
  status,
  user_agent: GPTBOT,
  ip,
});

Deno.test("behavior_crawl_coverage: pages never read are pages people view, never crawler-only paths", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") });
  try {
    let visitor = 0;
    for (const path of ["/pricing", "/contact"]) {
      for (let i = 0; i < 3; i++) {
        assert.equal((await site.ingest([pageview(visitor++, 0, path)])).status, 204);
      }
    }
    const sent = await site.serverEvents([
      hit("20.171.206.10", "/pricing"), // read, and people view it
      hit("20.171.206.10", "/feed/latest"), // read, nobody views it: a page, not a missed one
      hit("20.171.206.10", "/old-pricing", 404), // asked for, never got
      hit("203.0.113.9", "/wp-login.php"), // a spoofed agent only
    ]);
    assert.equal(sent.status, 202);
    site.deps.clock.advance(6 * 60_000);
    assert.deepEqual(await sweepPendingVerifications(site.app.ctx), { verified: 1, failed: 0 });

    const a = await site.read("behavior_crawl_coverage", { period: "last_7_days" });
    assert.deepEqual(a.pages_never_read, [{ page: "/contact", pageviews: 3, visitors: 3 }]);
    assert.equal(a.pages_never_read_total, 1);
    assert.equal(a.summary.pages_never_read, 1);
    for (const p of a.pages_never_read) assert.ok(p.pageviews > 0, p.page);
    // known pages: viewed (/pricing, /contact) or got by a crawler (/feed/latest); not /old-pricing, /wp-login.php
    assert.equal(a.summary.known_pages, 3);
    // the same for one crawler
    const one = await site.read("behavior_crawl_coverage", { period: "last_7_days", crawler: "GPTBot" });
    assert.deepEqual(one.pages_never_read.map((p: { page: string }) => p.page), ["/contact"]);
  } finally {
    await site.close();
  }
});
