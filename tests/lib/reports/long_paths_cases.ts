/**
 * Pages with long paths (anyone holding the public key can send them) must not make the weekly report
 * impossible: it was one KV value over 64 KiB ("Value too large"), failing every hour (found in review).
 * Real KV file, events through the HTTP ingest, compaction and the hourly report job.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { compactAll } from "../../../lib/jobs/compact.ts";
import { generateDueReports } from "../../../pipeline/reports_generate.ts";
import { listReports } from "../../../lib/reports/store.ts";
import { MAX_REPRODUCE_WORD } from "../../../lib/reports/bound.ts";

Deno.test("reports: four pages of 20,000-character paths still give a stored weekly report", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const deps = await testDeps({ kv });
    deps.clock.set(Date.parse("2026-11-18T10:00:00Z")); // Wednesday of ISO week 47
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const pages = [0, 1, 2, 3].map((i) => "/p" + i + "/" + "a".repeat(20_000));
    for (let v = 0; v < 30; v++) {
      const batch = pages.map((p, i) =>
        event({
          anonymous_id: `v${v}`,
          session_id: `s${v}`,
          sequence_no: i,
          screen: "/x",
          properties: { path: p, url: "https://acme.test/x" },
          device_time: new Date(deps.clock.now()).toISOString(),
        })
      );
      const res = await app.request("/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.publicKey, batch }),
      });
      assert.ok(res.status < 300, `ingest ${res.status}`);
    }
    deps.clock.set(Date.parse("2026-11-23T23:10:00Z"));
    await compactAll(deps);
    deps.clock.set(Date.parse("2026-11-24T01:30:00Z")); // Tuesday: week 47 closed
    await compactAll(deps);
    await generateDueReports(app.ctx);
    const stored = await listReports(deps.kv, t.org, "production");
    const weekly = stored.find((r) => r.kind === "weekly" && r.period_key === "2026-W47");
    assert.ok(weekly, `weekly report stored; have ${stored.map((r) => r.period_key)}`);
    const text = JSON.stringify(weekly);
    assert.ok(text.includes("/p0/aaaa"), "the long pages are still named");
    assert.ok(!text.includes("a".repeat(MAX_REPRODUCE_WORD + 1)), "no word longer than the bound");
    assert.deepEqual(deps.log.lines.filter((l) => l.includes("report generation failed")), []);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
