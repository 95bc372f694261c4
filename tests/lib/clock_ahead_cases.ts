/**
 * One bound for how far ahead of the service's clock a stored time may lie (lib/clock.ts AHEAD_ALLOWED_MS):
 * a live crawler hit past it takes the receive time and an import line past it is refused; both keep a time
 * just inside it.
 */
import assert from "node:assert/strict";
import { AHEAD_ALLOWED_MS, MINUTE, timeInRange } from "../../lib/clock.ts";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredHit } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

Deno.test("clock: a time more than minutes ahead is out of range by default", () => {
  const now = Date.parse("2026-11-20T12:00:00Z");
  assert.ok(AHEAD_ALLOWED_MS <= 5 * MINUTE, "a bound of minutes: sender servers keep NTP time");
  assert.ok(timeInRange(now + AHEAD_ALLOWED_MS, now));
  assert.ok(!timeInRange(now + AHEAD_ALLOWED_MS + 1, now));
  assert.ok(!timeInRange(now + 10 * MINUTE, now));
});

Deno.test("clock: live hits and the history import go by the same ahead bound", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const now = deps.clock.now();
    const inside = now + AHEAD_ALLOWED_MS - MINUTE, outside = now + AHEAD_ALLOWED_MS + MINUTE;
    const hit = (at: number) => ({
      event_type: "$crawl",
      event_id: crypto.randomUUID(),
      timestamp: new Date(at).toISOString(),
      host: t.domain,
      path: "/docs",
      user_agent: GPTBOT,
    });
    const live = [hit(inside), hit(outside)];
    const res = await app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.serverKey}` },
      body: JSON.stringify({ events: live }),
    });
    assert.equal(res.status, 202, await res.clone().text());
    const stored = new Map<string, number>();
    for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
      stored.set(e.value.id, e.value.timestamp);
    }
    assert.equal(stored.get(live[0].event_id), inside, "inside the bound: kept");
    assert.equal(stored.get(live[1].event_id), now, "past it: the receive time");

    const imported = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: [inside, outside].map((at) => JSON.stringify({ kind: "hit", ...hit(at) })).join("\n"),
    });
    const result = await imported.json();
    assert.equal(result.imported, 1, JSON.stringify(result));
    assert.deepEqual(result.rejected.map((r: { line: number }) => r.line), [2]);
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
