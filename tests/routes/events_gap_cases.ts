import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

Deno.test("data quality: an absurd sequence_no jump is a new page load; a real gap across batches counts", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const post = async (batch: unknown[]) =>
      (await app.request("/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.publicKey, batch }),
      })).status;
    const a = { anonymous_id: "a", session_id: "sa" }, b = { anonymous_id: "b", session_id: "sb" };
    assert.equal(
      await post([
        event({ ...a, sequence_no: 0, device_time: "2026-11-20T11:59:00.000Z" }),
        event({ ...a, sequence_no: Number.MAX_SAFE_INTEGER, device_time: "2026-11-20T11:59:01.000Z" }),
        event({ ...b, sequence_no: 0, device_time: "2026-11-20T11:59:00.000Z" }),
      ]),
      204,
    );
    // a second batch of session b: 1-4 were lost between the batches
    assert.equal(await post([event({ ...b, sequence_no: 5, device_time: "2026-11-20T11:59:05.000Z" })]), 204);
    const res = await app.request("/v1/read/behavior_overview", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: '{"period":"today"}',
    });
    const answer = await res.json();
    assert.equal(answer.data_quality.dropped_events.value, 4, JSON.stringify(answer.data_quality));
  } finally {
    deps.kv.close();
  }
});
