/**
 * A page named in a question is matched in the form pages are stored (lib/url_path.ts): people and assistants
 * write "/über-uns" and "/a b", the service stores "/%C3%BCber-uns" and "/a%20b". Before, every tool answered 0
 * visitors for the page as written, where 6 viewed it. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

Deno.test("read tools: a page written as people write it ('/über-uns', '/a b', lower-case escapes) finds its page", async () => {
  const site = await openSite({
    now: Date.parse("2026-11-18T10:00:00Z"),
    config: { readKeyRatePerMinute: 10_000 },
  });
  try {
    let visitor = 0;
    for (const seen of ["/über-uns", "/a b"]) {
      for (let i = 0; i < 6; i++, visitor++) {
        const res = await site.ingest([pageview(visitor, 0, seen), pageview(visitor, 1, "/pricing")]);
        assert.equal(res.status, 204);
      }
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "read about us", {
      kind: "page",
      path: "/über-uns",
    });
    const ask = (tool: string, input: Record<string, unknown>) =>
      site.read(tool, { period: "last_7_days", ...input });
    for (const page of ["/über-uns", "/%c3%bcber-uns", "/%C3%BCber-uns"]) {
      assert.equal((await ask("behavior_trends", { page })).total.value, 6, `trends ${page}`);
      assert.equal((await ask("behavior_overview", { page })).visitors.value, 6, `overview ${page}`);
      const funnel = await ask("behavior_funnel", { steps: [{ page }, { page: "/pricing" }] });
      assert.deepEqual(funnel.steps.map((s: { visitors: number }) => s.visitors), [6, 6], `funnel ${page}`);
      assert.equal((await ask("behavior_paths", { page })).anchor_visitors, 6, `paths ${page}`);
    }
    assert.equal((await ask("behavior_trends", { page: "/a b" })).total.value, 6);
    assert.equal((await ask("behavior_paths", { page: "/über*" })).anchor_visitors, 6, "a prefix too");
    const found = await ask("behavior_pages", { search: "über" });
    assert.deepEqual(found.pages.map((p: { visitors: number }) => p.visitors), [6]);
    assert.equal((await ask("behavior_pages", { search: "a b" })).pages_total, 1);
    const cohort = await ask("behavior_overview", { cohort: "read about us" });
    assert.equal(cohort.visitors.value, 6, "a saved cohort's page condition as people write it");
  } finally {
    await site.close();
  }
});
