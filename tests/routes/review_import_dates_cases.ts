/**
 * A review import line whose date no app store could have given (before 2008, the stores' first year, or more
 * than a day after the server's clock: 1e20 ms, -1e15 s, year +275760) is rejected with its line number and
 * "date: out of range", in NDJSON and CSV alike; before, such lines counted as imported and then appeared in
 * no period of any feedback tool. The lines with possible dates still import and are read back.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { TEST_ADMIN_TOKEN } from "../helpers/deps.ts";
import { acmeOwnApp } from "../helpers/own_app.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");

Deno.test("review import: impossible dates are rejected by line, NDJSON and CSV, and good lines are read back", async () => {
  const s = await openSite({ now: NOW });
  try {
    const own = await acmeOwnApp(s, NOW);
    const far = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const bad = [1e20, -1e15, "+275760-09-13T00:00:00Z", "2007-12-31T23:59:59Z", far, -1, 1e15];
    const lines = [
      { id: "ok-1", rating: 2, text: "keeps crashing on start", created_at: "2026-11-18T09:00:00Z" },
      ...bad.map((d, i) => ({ id: `bad-${i}`, rating: 1, text: `crashes ${i}`, created_at: d })),
      { id: "ok-2", rating: 4, text: "good app", created_at: Date.parse("2026-11-19T09:00:00Z") },
      { id: "bad-upd", rating: 3, text: "fine", created_at: "2026-11-19T09:00:00Z", updated_at: 1e20 },
    ];
    const body = await s.importReviews(own.id, lines);
    assert.equal(body.imported, 2, JSON.stringify(body));
    assert.equal(body.rejected_total, bad.length + 1, JSON.stringify(body));
    assert.deepEqual(
      body.rejected,
      [
        ...bad.map((_, i) => ({ line: i + 2, error: "date: out of range" })),
        { line: bad.length + 3, error: "updated_at: out of range" },
      ],
    );

    const csv = "id,rating,text,date\n" +
      "c-ok,5,works well,2026-11-17T08:00:00Z\n" +
      "c-bad,1,broken,+275760-09-13T00:00:00Z\n" +
      "c-old,1,broken,1999-01-01T00:00:00Z\n";
    const res = await s.app.request(`/admin/v1/orgs/${s.t.org}/apps/${own.id}/reviews/import?format=csv`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "text/csv" },
      body: csv,
    });
    const c = await res.json();
    assert.equal(res.status, 200, JSON.stringify(c));
    assert.equal(c.imported, 1, JSON.stringify(c));
    assert.deepEqual(c.rejected, [{ line: 3, error: "date: out of range" }, {
      line: 4,
      error: "date: out of range",
    }]);

    const read = await s.ask("feedback_reviews", { app: "Acme", period: "last_30_days", limit: 25 });
    const r = await read.json();
    assert.equal(read.status, 200, JSON.stringify(r));
    assert.deepEqual(r.reviews.map((x: { text: string }) => x.text).sort(), [
      "good app",
      "keeps crashing on start",
      "works well",
    ]);
  } finally {
    await s.close();
  }
});
