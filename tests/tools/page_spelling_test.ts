/**
 * A page named in a question is matched in the form pages are stored (lib/url_path.ts): people and assistants
 * write "/über-uns" and "/a b", the service stores "/%C3%BCber-uns" and "/a%20b". Before, every tool answered 0
 * visitors for the page as written, where 6 viewed it. Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { saveCohort } from "../helpers/saved.ts";

Deno.test("read tools: a page written as people write it ('/über-uns', '/a b', lower-case escapes) finds its page", async () => {
  const file = await Deno.makeTempFile({ suffix: ".sqlite3" });
  const kv = await Deno.openKv(file);
  try {
    const deps = await testDeps({ kv });
    deps.config = { ...deps.config, trustProxy: true, readKeyRatePerMinute: 10_000 };
    deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    let visitor = 0;
    for (const seen of ["/über-uns", "/a b"]) {
      for (let i = 0; i < 6; i++, visitor++) {
        const view = (seq: number, path: string) => ({
          event_id: crypto.randomUUID(),
          anonymous_id: `v${visitor}`,
          session_id: `s${visitor}`,
          sequence_no: seq,
          platform: "web",
          event_type: "$pageview",
          screen: path,
          properties: { path, url: `https://acme.test${path}` },
          device_time: `2026-11-18T10:00:0${seq}.000Z`,
        });
        const res = await app.request("/v1/behavior/events", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin: "https://acme.test",
            "x-forwarded-for": `81.2.69.${visitor + 1}`,
            "user-agent":
              "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) " +
              "Chrome/130.0.0.0 Safari/537.36",
          },
          body: JSON.stringify({ api_key: t.publicKey, batch: [view(0, seen), view(1, "/pricing")] }),
        });
        assert.equal(res.status, 204);
      }
    }
    await saveCohort(deps, t.org, t.touchpoint, "read about us", { kind: "page", path: "/über-uns" });
    const ask = async (tool: string, input: Record<string, unknown>) => {
      const res = await app.request(`/v1/read/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
        body: JSON.stringify({ period: "last_7_days", ...input }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    };
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
    kv.close();
    await Deno.remove(file);
  }
});
