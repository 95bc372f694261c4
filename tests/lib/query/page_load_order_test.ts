/**
 * One page load sent as two batches, the first retried and landing after the second (review #14): the page
 * load reads in the order it happened (device time, then number), not the order its batches arrived. Through
 * the HTTP ingest on a real KV file, from the raw tail and after the compaction job: the funnel /pricing ->
 * /signup converts, paths from /pricing go on to /signup, entries are /pricing and exits /signup.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../../helpers/site.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const VISITORS = 6;

Deno.test("page load order: a retried first batch arriving after the next one does not reverse the page load", async () => {
  const site = await openSite({ now: T0, config: { readKeyRatePerMinute: 10_000 } });
  try {
    for (let v = 0; v < VISITORS; v++) {
      const first = pageview(v, 0, "/pricing"); // device 10:00:00
      const second = pageview(v, 1, "/signup"); // device 10:00:01, same page load (client-side route)
      site.deps.clock.set(T0 + 2_000 + v);
      assert.equal((await site.ingest([second])).status, 204);
      site.deps.clock.set(T0 + 9_000 + v); // the first batch's retry
      assert.equal((await site.ingest([first])).status, 204);
    }
    site.deps.clock.set(T0 + 60_000);
    const ask = (tool: string, input: Record<string, unknown>) =>
      site.read(tool, { period: "2026-11-18..2026-11-18", ...input });
    for (const label of ["raw", "compacted", "a closed day (rollups)"]) {
      if (label === "compacted") {
        await site.compact();
        assert.equal((await site.stored()).length, 0, "all compacted");
      }
      if (label === "a closed day (rollups)") site.deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
      const funnel = await ask("behavior_funnel", { steps: [{ page: "/pricing" }, { page: "/signup" }] });
      assert.deepEqual(
        funnel.steps.map((s: { visitors: number }) => s.visitors),
        [VISITORS, VISITORS],
        `${label} funnel`,
      );
      const paths = await ask("behavior_paths", { page: "/pricing" });
      const next = JSON.stringify(paths);
      assert.ok(next.includes("/signup"), `${label} paths: ${next}`);
      const pages = await ask("behavior_pages", {});
      const row = (p: string) =>
        pages.pages.find((r: { path?: string; page?: string }) => (r.path ?? r.page) === p);
      const text = JSON.stringify(pages.pages);
      assert.equal(row("/pricing")?.entries, VISITORS, `${label} entries: ${text}`);
      assert.equal(row("/signup")?.exits, VISITORS, `${label} exits: ${text}`);
    }
  } finally {
    await site.close();
  }
});
