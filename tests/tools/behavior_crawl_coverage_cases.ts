import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import { DAY, humans, LAST7 } from "./expect.ts";
import { NOW } from "./generate.ts";

const LAST30 = { from: Date.parse("2026-10-22T00:00:00Z"), to: LAST7.to };

Deno.test("behavior_crawl_coverage: crawlers, pages never read, stale pages and site files match the hits", async () => {
  const h = await harness();
  const a = await h.ask("behavior_crawl_coverage", { period: "last_30_days" });
  const inPeriod = h.site.hits.filter((x) => x.timestamp >= LAST30.from && x.timestamp < LAST30.to);
  const trusted = inPeriod.filter((x) => x.verification !== "spoofed");
  for (const c of a.crawlers) {
    const mine = trusted.filter((x) => x.crawler === c.crawler);
    assert.equal(c.requests, mine.length, c.crawler);
    const read = mine.filter((x) => x.crawled && x.site_file === null);
    assert.equal(c.pages_read, new Set(read.map((x) => x.path)).size, c.crawler);
    assert.equal(
      c.verified_pages,
      new Set(read.filter((x) => x.verification === "verified").map((x) => x.path)).size,
    );
  }
  assert.equal(a.crawlers_total, new Set(trusted.map((x) => x.crawler)).size);
  // AI visibility counts verified AI crawlers only: PerplexityBot (unverifiable) adds nothing.
  const aiVerified = trusted.filter((x) =>
    x.crawled && x.site_file === null && x.verification === "verified" && x.category.startsWith("ai_")
  );
  assert.equal(a.summary.pages_read_by_ai_verified, new Set(aiVerified.map((x) => x.path)).size);
  // Pages people view that no crawler read in the lookback: /contact is only ever visited, never crawled.
  // Known pages: viewed, or got by a crawler (spoofed left out); a path only asked for is no page.
  const viewed = new Set(
    humans(h.site.events, LAST30).filter((e) => e.event_type === "$pageview").map((e) => e.path),
  );
  const known = new Set([
    ...viewed,
    ...trusted.filter((x) => x.site_file === null && x.crawled).map((x) => x.path),
  ]);
  const readEver = new Set(
    h.site.hits.filter((x) => x.verification !== "spoofed" && x.crawled && x.timestamp > NOW - 90 * DAY).map((
      x,
    ) => x.path),
  );
  const never = [...viewed].filter((p) => !readEver.has(p)).sort();
  assert.deepEqual(a.pages_never_read.map((p: { page: string }) => p.page).sort(), never);
  assert.ok(never.includes("/contact"));
  // each never-read page with its pageviews and its visitors (people with a pageview of it) in the period
  const views = humans(h.site.events, LAST30).filter((e) => e.event_type === "$pageview");
  for (const p of a.pages_never_read as { page: string; pageviews: number; visitors: number }[]) {
    const mine = views.filter((e) => e.path === p.page);
    assert.equal(p.pageviews, mine.length, p.page);
    assert.equal(p.visitors, new Set(mine.map((e) => e.anonymous_id)).size, p.page);
  }
  assert.equal(a.summary.known_pages, known.size);
  // /docs was last read 30 days ago: stale after 14 days, not after 45.
  const docs = a.stale_pages.find((p: { page: string }) => p.page === "/docs");
  assert.equal(docs?.days_since, 30);
  const lenient = await h.ask("behavior_crawl_coverage", { period: "last_30_days", stale_after_days: 45 });
  assert.ok(!lenient.stale_pages.some((p: { page: string }) => p.page === "/docs"));
  const robots = a.site_files.find((f: { file: string }) => f.file === "robots.txt");
  assert.equal(robots.requests, trusted.filter((x) => x.site_file === "robots.txt").length);
  const one = await h.ask("behavior_crawl_coverage", { crawler: "ClaudeBot" });
  assert.deepEqual(one.crawlers.map((c: { crawler: string }) => c.crawler), ["ClaudeBot"]);
  // named as people and robots.txt write it (found in review: "claudebot" answered an empty site)
  const lower = await h.ask("behavior_crawl_coverage", { crawler: "claudebot" });
  assert.deepEqual(lower.crawlers, one.crawlers);
  assert.deepEqual(lower.summary, one.summary);
  const unknown = await h.askRaw("behavior_crawl_coverage", { crawler: "no such bot" });
  assert.equal(unknown.status, 422);
  assert.match((await unknown.json()).error, /^crawler: no crawler "no such bot"/);
  h.close();
});
