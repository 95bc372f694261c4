/**
 * The admin API answers 404 for an id longer than any the service gives (in the path or the import's
 * `touchpoint`), before KV is asked: such an id did not fit a KV key, and the request was a 500 with an error
 * log line. Real app on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";

Deno.test("admin API: an id of 3,000 characters is a 404, never a 500", async () => {
  const site = await openSite({ now: Date.parse("2026-11-20T12:00:00Z") });
  try {
    const long = "x".repeat(3000);
    const ask = async (method: string, path: string, body?: string, type = "application/json") => {
      const r = await site.app.request(path, {
        method,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": type },
        body,
      });
      await r.body?.cancel();
      return r.status;
    };
    const ndjson = "application/x-ndjson";
    assert.equal(await ask("GET", `/admin/v1/orgs/${long}`), 404);
    assert.equal(await ask("POST", `/admin/v1/orgs/${long}/import?touchpoint=x`, "", ndjson), 404);
    assert.equal(
      await ask("POST", `/admin/v1/orgs/${site.t.org}/import?touchpoint=${long}`, "", ndjson),
      404,
    );
    assert.equal(await ask("PATCH", `/admin/v1/orgs/${site.t.org}/touchpoints/${long}`, "{}"), 404);
    assert.equal(
      await ask("POST", `/admin/v1/orgs/${site.t.org}/apps/${long}/reviews/import`, "{}\n", ndjson),
      404,
    );
    // an ordinary id still works
    assert.equal(await ask("GET", `/admin/v1/orgs/${site.t.org}`), 200);
    assert.deepEqual(site.deps.log.lines.filter((l) => l.includes('"error"')), []);
  } finally {
    await site.close();
  }
});
