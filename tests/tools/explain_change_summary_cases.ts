/**
 * behavior_explain_change's summary names the largest part moving with the total, and a larger part moving
 * against it as what offset it; a dimension with one value in both periods (every visitor on desktop) is no
 * driver. Before (found in review): "visitors rose …; the largest part: device desktop" on a site where
 * everyone is on desktop, and a rise called "largely" a fall.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { ev, store } from "../lib/query/fixtures.ts";

Deno.test("behavior_explain_change: the summary's largest part moves with the total; one-valued dimensions are no drivers", async () => {
  const deps = await testDeps();
  try {
    deps.config = { ...deps.config, readKeyRatePerMinute: 10_000 };
    deps.clock.set(Date.parse("2026-11-16T12:00:00Z"));
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const before = Date.parse("2026-11-03T10:00:00Z"), now = Date.parse("2026-11-10T10:00:00Z");
    const channels: [number, string, string, number][] = [
      // at, channel, source, visitors: Direct loses 12, Referral gains 7, Organic Search 6: visitors 20 -> 21
      [before, "Direct", "(direct)", 20],
      [now, "Direct", "(direct)", 8],
      [now, "Referral", "news.example", 7],
      [now, "Organic Search", "google", 6],
    ];
    let n = 0;
    const events = channels.flatMap(([at, channel, source, visitors]) =>
      Array.from({ length: visitors }, (_, i) =>
        ev({
          org: t.org,
          touchpoint: t.touchpoint,
          anonymous_id: `v${n++}`,
          session_id: `s${n}`,
          received_at: at + i * 60_000,
          channel: channel as "Direct",
          source,
        }))
    );
    await store(deps.kv, { events });
    const res = await app.request("/v1/read/behavior_explain_change", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "2026-11-09..2026-11-15", metric: "visitors" }),
    });
    const a = await res.json();
    assert.equal(res.status, 200, JSON.stringify(a));
    assert.equal(a.total.difference, 1);
    assert.match(a.summary, /rose from 20 to 21/);
    assert.match(
      a.summary,
      /the largest part: channel Referral \(\+7\); partly offset by channel Direct \(-12\)/,
    );
    const named = a.drivers.map((d: { dimension: string }) => d.dimension);
    for (const one of ["device", "country", "browser"]) {
      assert.ok(!named.includes(one), `${one} has one value in both periods: ${JSON.stringify(named)}`);
    }
  } finally {
    deps.kv.close();
  }
});
