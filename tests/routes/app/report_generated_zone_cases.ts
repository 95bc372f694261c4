/**
 * A report's page says when it was generated in the organization's time zone, named, as its period is: it read
 * "Generated 29 Nov 2026, 21:56 UTC" under a period "(Europe/Berlin)", an hour off what the organization's
 * people read everywhere else (22:56). An organization in UTC reads "… UTC" as before. Through the app: events
 * through the events endpoint, the report made with the app's "Generate" form, its page opened.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { joinOrg, orgUrl } from "../../helpers/people.ts";
import { compactAll } from "../../../lib/jobs/compact.ts";

const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/\s+/g, " ");

async function generatedLine(timezone: string) {
  const deps = await testDeps();
  try {
    deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN, { timezone });
    for (let i = 0; i < 6; i++) {
      const res = await app.request("/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({
          api_key: t.publicKey,
          batch: [event({ anonymous_id: `v${i}`, session_id: `s${i}` })],
        }),
      });
      assert.equal(res.status, 204, await res.text());
      deps.clock.advance(60_000);
    }
    // Sunday 29 Nov 2026, 21:56:30 UTC: 22:56 in Berlin
    deps.clock.set(Date.parse("2026-11-29T21:56:30Z"));
    await compactAll(deps);
    const owner = await joinOrg(app, t.org, "owner@acme.test", "owner");
    const made = await owner.submit(orgUrl(t.org, "reports/generate"), {
      period: "weekly:2026-W47",
      touchpoint: t.touchpoint,
    });
    assert.match(made.html, /generated/);
    const href = made.html.match(/href="(\/app\/o\/[^"]+\/reports\/weekly-[^"]+)"/)?.[1];
    assert.ok(href, "the report is linked");
    const page = await owner.open(href);
    assert.equal(page.status, 200);
    const line = text(page.html).match(/Generated [^.]*\./)?.[0];
    assert.ok(line, text(page.html).slice(0, 600));
    return { line, scope: text(page.html).match(/\([^)]*\), production/)?.[0] };
  } finally {
    deps.kv.close();
  }
}

Deno.test("report page: the generated time reads in the organization's time zone, named", async () => {
  const berlin = await generatedLine("Europe/Berlin");
  assert.equal(berlin.line, "Generated 29 Nov 2026, 22:56 (Europe/Berlin) on request.");
  assert.equal(berlin.scope, "(Europe/Berlin), production");
  const utc = await generatedLine("UTC");
  assert.equal(utc.line, "Generated 29 Nov 2026, 21:56 UTC on request.");
});
