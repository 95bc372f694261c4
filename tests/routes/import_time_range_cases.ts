import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const importLines = (lines: string[]) =>
    app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    });
  const read = (tool: string, body: unknown = { period: "last_7_days" }) =>
    app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const event = (id: number, receivedAt: unknown) =>
    JSON.stringify({
      kind: "event",
      received_at: receivedAt,
      event_id: uuid(id),
      anonymous_id: "anon-1",
      session_id: "sess-1",
      sequence_no: id,
      platform: "web",
      event_type: "$pageview",
      screen: "/pricing",
      properties: { path: "/pricing", url: `https://${t.domain}/pricing` },
      device_time: new Date(deps.clock.now() - 3_600_000).toISOString(),
    });
  return { deps, app, t, importLines, read, event };
}

Deno.test("import: a receive time outside 2000-01-01 .. 5 minutes ahead is a rejected line naming the range, and reads keep working", async () => {
  const { deps, importLines, read, event } = await setup();
  const now = deps.clock.now();
  const res = await importLines([
    event(1, new Date(now - 3_600_000).toISOString()),
    event(2, 1e20),
    event(3, "+275760-09-13T00:00:00Z"),
    event(4, -1e15),
    event(5, now + 3 * 86_400_000),
    JSON.stringify({
      kind: "hit",
      event_type: "$crawl",
      event_id: uuid(100),
      timestamp: "9999-01-01T00:00:00Z",
      host: "acme.test",
      path: "/",
      status: 200,
      user_agent: "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      ip: null,
    }),
  ]);
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.imported, 1);
  assert.deepEqual(body.rejected.map((r: { line: number }) => r.line), [2, 3, 4, 5, 6]);
  for (const r of body.rejected) assert.match(r.error, /between 2000-01-01 and 5 minutes past now/);
  for (const tool of ["behavior_overview", "account_overview"]) {
    const r = await read(tool, tool === "account_overview" ? {} : { period: "last_7_days" });
    const text = await r.text();
    assert.equal(r.status, 200, `${tool}: ${text}`);
    assert.doesNotMatch(text, /275760|Invalid time/);
  }
});

Deno.test("reads: a raw event or hit already stored with an impossible time is moved aside, and every read answers", async () => {
  const { deps, app, t, importLines, read, event } = await setup();
  const now = deps.clock.now();
  assert.equal((await importLines([event(1, new Date(now - 3_600_000).toISOString())])).status, 200);
  // as a deployment from before the range check may hold: copy the stored event under an impossible time
  const [stored] = await Array.fromAsync(deps.kv.list({ prefix: keys.rawEvents(t.org, "production") }));
  const packed = structuredClone(stored.value) as unknown[];
  const bad = 1e20;
  const at = packed.indexOf(stored.key[3]);
  assert.ok(at > 0, "the packed event holds its receive time");
  packed[at] = bad;
  await deps.kv.set(keys.rawEvent(t.org, "production", bad, uuid(2)), packed);
  await deps.kv.set(keys.rawHit(t.org, "production", 8.64e15, uuid(3)), {
    id: uuid(3),
    received_at: 8.64e15,
    timestamp: 8.64e15,
  });

  for (const tool of ["behavior_overview", "behavior_pages", "behavior_crawl_coverage", "account_overview"]) {
    const r = await read(tool, tool === "account_overview" ? {} : { period: "last_7_days" });
    const text = await r.text();
    assert.equal(r.status, 200, `${tool}: ${text}`);
    assert.doesNotMatch(text, /275760|Invalid time/);
  }
  const q = await adminCall(app, TEST_ADMIN_TOKEN, "GET", `/orgs/${t.org}/quarantine`);
  assert.equal(q.count, 2);
  for (const r of q.records) assert.match(r.reason, /outside 2000-01-01/);
});
