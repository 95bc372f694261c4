import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { packEvent, unpackEvent } from "../../lib/store/event_codec.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

async function setup() {
  const deps = await testDeps();
  deps.config = { ...deps.config, readKeyRatePerMinute: 100000 } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (batch: unknown[]) =>
    app.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({ api_key: t.publicKey, batch }),
    });
  const ask = async (tool: string, input: unknown) =>
    await (await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    })).json();
  return { deps, t, post, ask };
}

const leave = (properties: Record<string, unknown>) =>
  event({ event_type: "$pageleave", properties: { path: "/pricing", ...properties } });
const vital = (metric: string, value: unknown) =>
  event({ event_type: "$web_vitals", properties: { path: "/pricing", metric, value, rating: "good" } });

Deno.test("events: a capture-layer number out of its range is a 422 naming the field", async () => {
  const { deps, post } = await setup();
  try {
    const cases: [unknown, string][] = [
      [leave({ depth_percent: 1e300 }), "batch[1].properties.depth_percent: must be between 0 and 100"],
      [leave({ depth_percent: -1 }), "batch[1].properties.depth_percent: must be between 0 and 100"],
      [leave({ engagement_time_ms: -1e12 }), "batch[1].properties.engagement_time_ms: must be between 0 and"],
      [leave({ engagement_time_ms: 86_400_001 }), "batch[1].properties.engagement_time_ms"],
      [vital("LCP", 1e300), "batch[1].properties.value: must be between 0 and 600000"],
      [vital("INP", -5), "batch[1].properties.value"],
      [vital("CLS", 101), "batch[1].properties.value: must be between 0 and 100"],
    ];
    for (const [bad, expected] of cases) {
      const res = await post([event(), bad]);
      assert.equal(res.status, 422, JSON.stringify(bad));
      const body = await res.json();
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(body.error.includes(expected), `${body.error} should name ${expected}`);
    }
    // the edges, other metrics, strings and custom events' "value" are not judged
    const fine = [
      leave({ depth_percent: 0, engagement_time_ms: 0 }),
      leave({ depth_percent: 100, engagement_time_ms: 86_400_000 }),
      leave({ depth_percent: "deep" }),
      vital("LCP", 600_000),
      vital("CLS", 0.25),
      vital("XYZ", 1e300),
      event({ event_type: "purchase", properties: { path: "/pricing", value: -1e12 } }),
    ];
    assert.equal((await post(fine)).status, 204);
  } finally {
    deps.kv.close();
  }
});

Deno.test("events: out-of-range numbers stored before the check are read as absent", async () => {
  const { deps, t, post, ask } = await setup();
  try {
    const batch = [];
    // 7 visitors: the page's means are shown where 5 of them reported both figures in range (v2 to v6)
    for (let v = 0; v < 7; v++) {
      const s = { anonymous_id: `v${v}`, session_id: `s${v}` };
      batch.push(event({ ...s, sequence_no: 0, device_time: "2026-11-20T11:59:00.000Z" }));
      batch.push(event({
        ...s,
        sequence_no: 1,
        event_type: "$pageleave",
        device_time: "2026-11-20T11:59:30.000Z",
        properties: { path: "/pricing", depth_percent: 50, engagement_time_ms: 20_000 },
      }));
      batch.push(event({
        ...s,
        sequence_no: 2,
        event_type: "$web_vitals",
        device_time: "2026-11-20T11:59:31.000Z",
        properties: { path: "/pricing", metric: "LCP", value: 1200, rating: "good" },
      }));
    }
    assert.equal((await post(batch)).status, 204);
    // what an older server let through: rewrite three stored events in place
    const prefix = keys.rawEvents(t.org, "production");
    for await (const e of deps.kv.list({ prefix })) {
      const ev = unpackEvent(e.value);
      const p = ev.properties as Record<string, unknown>;
      if (ev.anonymous_id === "v0" && ev.event_type === "$pageleave") p.depth_percent = 1e300;
      else if (ev.anonymous_id === "v1" && ev.event_type === "$pageleave") p.engagement_time_ms = -1e12;
      else if (ev.anonymous_id === "v2" && ev.event_type === "$web_vitals") p.value = 1e300;
      else continue;
      await deps.kv.set(e.key, packEvent(ev));
    }
    const pages = await ask("behavior_pages", { period: "today" });
    const page = pages.pages.find((x: { page: string }) => x.page === "/pricing");
    assert.equal(page.scroll_depth_percent, 50, JSON.stringify(page));
    assert.equal(page.engagement_time_s, 20, JSON.stringify(page));
    const perf = await ask("behavior_performance", { period: "today" });
    const text = JSON.stringify(perf);
    assert.ok(!text.includes("e+300"), text.slice(0, 800));
  } finally {
    deps.kv.close();
  }
});
