/**
 * An answer's series holds at most 400 points (lib/answers/rules.ts). A daily series over a longer period was
 * cut from its end: "daily visitors over the last two years" ended eleven months ago, today missing, without a
 * word (found in review). Now a daily series past 400 days is a 422 saying what to ask, and without an interval
 * a long period is shown by week, today included.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { ev, store } from "../lib/query/fixtures.ts";

Deno.test("behavior_trends: a daily series past 400 days is refused, and a long period defaults to weeks", async () => {
  const deps = await testDeps();
  try {
    deps.config = { ...deps.config, readKeyRatePerMinute: 10_000 };
    deps.clock.set(Date.parse("2026-11-18T12:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
    const today = Date.parse("2026-11-18T09:00:00Z");
    await store(deps.kv, {
      events: [ev({ org: t.org, touchpoint: t.touchpoint, anonymous_id: "today", received_at: today })],
    });
    const ask = (input: Record<string, unknown>) =>
      app.request("/v1/read/behavior_trends", {
        method: "POST",
        headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
        body: JSON.stringify({ period: "2024-11-20..2026-11-18", ...input }),
      });
    const daily = await ask({ interval: "day" });
    assert.equal(daily.status, 422);
    assert.match(
      (await daily.json()).error,
      /^daily series cover at most 400 days; use interval week or month/,
    );
    const res = await ask({});
    assert.equal(res.status, 200);
    const a = await res.json();
    assert.equal(a.interval, "week");
    assert.equal(a.total.value, 1);
    const points = a.series as { bucket: string; visitors: number }[];
    assert.ok(points.length <= 400);
    assert.equal(points.at(-1)!.bucket, "2026-11-16", "the series reaches the week of today");
    assert.equal(points.at(-1)!.visitors, 1);
    const shorter = await ask({ period: "2025-10-15..2026-11-18", interval: "day" }); // 400 days
    assert.equal(shorter.status, 200);
  } finally {
    deps.kv.close();
  }
});
