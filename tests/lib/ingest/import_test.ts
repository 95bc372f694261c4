import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredHit } from "../../../lib/store/records.ts";
import { siteLines } from "../../../scripts/generate.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";

const DAY = 86_400_000;

Deno.test("import: crawler hits of a 30-day history, in no time order, all import with their own timestamps", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const end = deps.clock.now();
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: 40,
      hits: 400,
      days: 30,
      seed: 3,
      end,
    }),
  ].filter((l) => l.includes('"kind":"hit"'));
  const sent = new Map(lines.map((l) => JSON.parse(l)).map((h) => [h.event_id, Date.parse(h.timestamp)]));
  const times = [...sent.values()];
  // the case that matters: hits more than 7 days apart, and not in time order
  assert.ok(Math.max(...times) - Math.min(...times) > 20 * DAY);
  assert.ok(times.some((x, i) => i > 0 && x < times[i - 1]));

  const res = await app.request(
    `/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    },
  );
  const answer = await res.json();
  assert.equal(answer.rejected_total, 0, JSON.stringify(answer.rejected.slice(0, 3)));
  assert.equal(answer.imported, lines.length);
  const stored = new Map<string, number>();
  for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
    stored.set(e.value.id, e.value.timestamp);
  }
  assert.deepEqual(stored, sent);
  deps.kv.close();
});
