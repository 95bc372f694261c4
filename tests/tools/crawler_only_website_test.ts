/**
 * Crawler questions need no touchpoint when the organization has one website beside its apps: only websites
 * have crawler hits, so "name the touchpoint" asked for a choice that was never one. Other questions still ask.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

Deno.test("crawler tools: with one website and an app, touchpoint left out means the website", async () => {
  const s = await openSite({ now: Date.parse("2026-11-20T10:00:00Z") });
  try {
    await s.admin("POST", "/touchpoints", { name: "Acme iOS", kind: "ios" });
    for (
      const [tool, input] of [["behavior_crawl_coverage", {}], ["behavior_crawler_access", {
        crawler: "GPTBot",
      }]]
    ) {
      const a = await s.read(tool as string, input);
      assert.equal(a.scope.touchpoint.id, s.t.touchpoint, `${tool} answers about the website`);
    }
    const overview = await s.ask("behavior_overview", {});
    assert.equal(overview.status, 422);
    assert.match(await overview.text(), /name the touchpoint/);
    // a second website makes the crawler question ask too
    await s.admin("POST", "/touchpoints", { name: "Blog", kind: "website", domain: "blog.acme.test" });
    const two = await s.ask("behavior_crawl_coverage", {});
    assert.equal(two.status, 422);
    assert.match(await two.text(), /name the touchpoint/);
  } finally {
    await s.close();
  }
});
