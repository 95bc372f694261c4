/** Event sizes as KV counts them (V8 bytes: two a character past U+00FF), not as JSON characters. */
import assert from "node:assert/strict";
import { serialize } from "node:v8";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (batch: unknown[]) =>
    app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.publicKey, batch }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
  const stored = async () => {
    const out: unknown[] = [];
    for await (const e of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) out.push(e.value);
    return out;
  };
  return { post, stored };
}

Deno.test("events size: 40,000 characters of Japanese (~80 KB as stored) is a 422 naming the event; nothing of the batch is stored", async () => {
  const { post, stored } = await setup();
  const big = event({ properties: { path: "/", review: "日本語".repeat(13_334) } });
  const res = await post([event(), big]);
  assert.equal(res.status, 422);
  assert.match((await res.json()).error, /^batch\[1\]: event takes 8\d{4} bytes as stored; at most 65000/);
  assert.equal((await stored()).length, 0);
});

Deno.test("events size: an event just under KV's limit in two-byte text is stored, and its stored size is under 64 KiB", async () => {
  const { post, stored } = await setup();
  const res = await post([event({ properties: { path: "/", note: "日".repeat(31_500) } })]);
  assert.equal(res.status, 204);
  const [value] = await stored();
  const bytes = serialize(value).byteLength;
  assert.ok(bytes > 63_000 && bytes <= 65_000, `stored ${bytes} bytes`);
});

Deno.test("events size: a 1 MB batch whose events take ~960 KB as stored is split into commits KV accepts", async () => {
  const { post, stored } = await setup();
  // 16 events of 30,000 ASCII characters and one CJK character: ~480 KB as sent, ~960 KB as stored
  const batch = Array.from(
    { length: 16 },
    (_, i) => event({ sequence_no: i, properties: { path: "/", note: "a".repeat(30_000) + "日" } }),
  );
  const res = await post(batch);
  await res.body?.cancel();
  assert.equal(res.status, 204);
  assert.equal((await stored()).length, 16);
});
