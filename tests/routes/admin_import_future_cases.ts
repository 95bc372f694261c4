import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

Deno.test("import: a line more than 5 minutes ahead is refused; the freshness notice never names the future", async () => {
  const deps = await testDeps();
  deps.config = { ...deps.config, readKeyRatePerMinute: 100000 } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const now = deps.clock.now();
    const line = (aheadMs: number, id: string) =>
      JSON.stringify({
        kind: "event",
        received_at: new Date(now + aheadMs).toISOString(),
        ...event({ anonymous_id: id, session_id: `s-${id}` }),
      });
    const body = [line(23 * 3_600_000, "tomorrow"), line(6 * 60_000, "six"), line(4 * 60_000, "four")].join(
      "\n",
    );
    const res = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body,
    });
    const result = await res.json();
    assert.equal(result.imported, 1, JSON.stringify(result));
    assert.deepEqual(result.rejected.map((r: { line: number }) => r.line), [1, 2]);
    for (const r of result.rejected) assert.match(r.error, /^received_at: .*5 minutes past now/);
    // the one kept line lies 4 minutes ahead: the notice says now, not then
    const answer = await (await app.request("/v1/read/behavior_overview", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: '{"period":"today"}',
    })).json();
    const notice = (answer.notices as string[]).find((n) => n.startsWith("data fresh to"));
    assert.equal(notice, `data fresh to ${new Date(now).toISOString()} (less than a minute ago)`);
  } finally {
    deps.kv.close();
  }
});
