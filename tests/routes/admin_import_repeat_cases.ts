/**
 * The same history imported again after its dedupe keys have expired (35 days) stores nothing twice: the
 * lines were compacted into parts meanwhile (no raw key left), and the import finds their ids there.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { compactAll } from "../../lib/jobs/compact.ts";
import { listParts } from "../../lib/parts/store.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const DAY = 86_400_000;
const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot";

Deno.test("import: the same history imported again past the 35-day dedupe window is stored once", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const now = deps.clock.now();
    const lines = [
      ...[12, 11, 11, 3].map((days, i) =>
        JSON.stringify({
          kind: "event",
          received_at: new Date(now - days * DAY).toISOString(),
          ...event({ anonymous_id: `v${i}`, session_id: `s${i}` }),
        })
      ),
      ...[10, 9].map((days) =>
        JSON.stringify({
          kind: "hit",
          event_type: "$crawl",
          event_id: crypto.randomUUID().toUpperCase(), // stored lowercased: found either way
          timestamp: new Date(now - days * DAY).toISOString(),
          host: t.domain,
          path: "/docs",
          user_agent: GPTBOT,
        })
      ),
    ].join("\n");
    const importOnce = async () => {
      const res = await app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: lines,
      });
      assert.equal(res.status, 200, await res.clone().text());
      return await res.json();
    };
    const first = await importOnce();
    assert.equal(first.imported, 6, JSON.stringify(first));
    assert.equal((await importOnce()).duplicates, 6, "within the window: the dedupe keys");

    // 36 days on: compacted into parts, and the dedupe keys gone (KV expiry runs on the real clock)
    deps.clock.advance(36 * DAY);
    await compactAll(deps, { graceMs: 0 });
    assert.ok((await listParts(deps.kv, t.org, "production", "ev")).length > 0, "events compacted");
    assert.ok((await listParts(deps.kv, t.org, "production", "hit")).length > 0, "hits compacted");
    for await (const e of deps.kv.list({ prefix: keys.dedupe(t.org, "").slice(0, 2) })) {
      await deps.kv.delete(e.key);
    }

    const again = await importOnce();
    assert.equal(again.imported, 0, JSON.stringify(again));
    assert.equal(again.duplicates, 6);
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
