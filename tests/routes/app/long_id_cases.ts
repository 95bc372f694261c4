/**
 * App pages with a 3,000-character id in the URL answer the 404 page like an unknown id, not a 500: the id went
 * straight into a KV key over the 2 KiB limit (found in review). The app's HTTP pages, a signed-in owner.
 */
import assert from "node:assert/strict";
import { peopleWorld } from "../../helpers/people.ts";

Deno.test("app: a 3,000-character id in an organization's page URL is a 404", async () => {
  const w = await peopleWorld();
  try {
    const c = await w.join("ann@acme.test", "owner");
    const long = "x".repeat(3000);
    for (
      const p of [
        `/app/o/${long}/settings/members`,
        `/app/o/${w.org}/cohorts/${long}`,
        `/app/o/${w.org}/insights/${long}`,
        `/app/o/${w.org}/dashboards/${long}`,
        `/app/o/${w.org}/reports/${long}`,
        `/app/o/${w.org}/settings/touchpoints/${long}`,
      ]
    ) {
      const r = await c.get(p);
      assert.equal(r.status, 404, p.replace(long, "<long>"));
    }
    assert.deepEqual(w.deps.log.lines.filter((l) => l.includes('"level":"error"')), []);
  } finally {
    w.close();
  }
});
