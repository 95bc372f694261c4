/**
 * A review import line whose id starts like a link but is not one ("http-play-42", "http://[bad") is an id as
 * it stands: the file imports, never a 500 that loses its good lines. A Play Console review link still gives
 * its reviewId.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall } from "../helpers/tenant.ts";

Deno.test("review import: an id that starts with 'http' but is no link imports as it is", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  try {
    const org = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", {
      name: "Acme",
      plan: "professional",
    });
    const a = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org.id}/apps`, {
      store: "google_play",
      store_id: "com.acme.app",
    });
    const lines = [
      { id: "ok-1", rating: 5, text: "great", created_at: "2026-11-01T00:00:00Z" },
      { id: "http-play-42", rating: 2, text: "slow", created_at: "2026-11-02T00:00:00Z" },
      { id: "http://[bad", rating: 3, text: "fine", created_at: "2026-11-03T00:00:00Z" },
      {
        id: "https://play.google.com/console/reviews?reviewId=gp:AOqpTOH1",
        rating: 4,
        text: "good",
        created_at: "2026-11-04T00:00:00Z",
      },
    ].map((l) => JSON.stringify(l)).join("\n") + "\n";
    const imp = () =>
      app.request(`/admin/v1/orgs/${org.id}/apps/${a.id}/reviews/import`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
        body: lines,
      });
    const first = await imp();
    const body = await first.json();
    assert.equal(first.status, 200, JSON.stringify(body));
    assert.equal(body.imported, 4, JSON.stringify(body));
    // the same file again: the ids (the link's reviewId among them) are the same reviews
    const again = await (await imp()).json();
    assert.equal(again.imported, 0, JSON.stringify(again));
  } finally {
    deps.kv.close();
  }
});
