/**
 * Page paths are bounded at ingest (docs/events.md, "Long values"): a page path over 1,024 characters, sent by
 * the web SDK in `properties.path` or by an app as its `screen`, is stored cut to 1,024 with "…" at its end, and
 * the event is kept (a 422 would drop the whole batch in the SDK). The value as sent stays in `properties`.
 * A host over 253 characters (no DNS name can be) names no host. Through the events endpoint, on a real KV
 * file, read back by the read API and from the store.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");

async function world() {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  deps.clock.set(NOW);
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (key: string, batch: unknown[], origin?: string) =>
    app.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", ...(origin ? { origin } : {}) },
      body: JSON.stringify({ api_key: key, batch }),
    });
  const ask = async (tool: string, input: unknown) => {
    const res = await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    assert.equal(res.status, 200);
    return await res.json();
  };
  const stored = async () => {
    const out: StoredEvent[] = [];
    for await (const e of deps.kv.list<Uint8Array>({ prefix: keys.rawEvents(t.org, "production") })) {
      out.push(unpackEvent(e.value));
    }
    return out;
  };
  const close = async () => {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { deps, app, t, post, ask, stored, close };
}

Deno.test("ingest: a web page path over 1,024 characters is stored cut with '…', the event kept", async () => {
  const w = await world();
  try {
    const long = "/p/" + "a".repeat(20_000);
    const host = "h".repeat(300) + ".acme.test";
    const res = await w.post(w.t.publicKey, [
      event({ properties: { path: long, url: `https://${host}${long}` }, screen: "/p" }),
      event({ properties: { path: "/pricing", url: "https://acme.test/pricing" } }),
    ], "https://acme.test");
    assert.equal(res.status, 204, await res.text());
    const events = await w.stored();
    assert.equal(events.length, 2, "both events kept");
    const cut = events.find((e) => e.path !== "/pricing")!;
    assert.equal(cut.path.length, 1_024);
    assert.equal(cut.path, long.slice(0, 1_023) + "…");
    assert.equal(cut.host, null, "a 310-character host is no host name");
    assert.equal((cut.properties as { path: string }).path, long, "the value as sent stays in properties");
    const pages = await w.ask("behavior_pages", { period: "today" });
    const names = pages.pages.map((p: { page: string }) => p.page);
    assert.ok(names.includes("/pricing"), JSON.stringify(names).slice(0, 300));
    assert.ok(names.every((p: string) => p.length <= 1_024), "no page longer than 1,024 characters");
  } finally {
    await w.close();
  }
});

Deno.test("ingest: an app screen that makes a path over 1,024 characters is cut the same way", async () => {
  const w = await world();
  try {
    const ios = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.t.org}/touchpoints`, {
      name: "iOS",
      kind: "ios",
    });
    const key = (await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.t.org}/keys`, {
      kind: "public",
      environment: "production",
      touchpoint: ios.id,
    })).key;
    // 2,048 characters is the longest screen the schema takes; "é" becomes "%C3%A9" in a path: 12,289 characters
    const screen = "/" + "é".repeat(2_047);
    const res = await w.post(key, [event({ platform: "ios", screen, properties: {} })]);
    assert.equal(res.status, 204, await res.text());
    const [ev] = await w.stored();
    assert.equal(ev.screen, screen, "the screen is stored as sent");
    assert.equal(ev.path.length, 1_024);
    assert.ok(ev.path.startsWith("/%C3%A9%C3%A9") && ev.path.endsWith("…"), ev.path.slice(-20));
  } finally {
    await w.close();
  }
});

Deno.test("ingest: a page path of exactly 1,024 characters is stored as sent", async () => {
  const w = await world();
  try {
    const path = "/" + "b".repeat(1_023);
    assert.equal(
      (await w.post(w.t.publicKey, [event({ properties: { path } })], "https://acme.test")).status,
      204,
    );
    assert.equal((await w.stored())[0].path, path);
  } finally {
    await w.close();
  }
});
