/**
 * A utm_source or referrer that is the name of an Object.prototype member ("constructor", "__proto__",
 * "toString") is an ordinary source: the tables of known sources (lib/enrich/sources.ts) answer only their own
 * entries, never Object's. Through the events endpoint on a real KV file, read back from the store and by
 * behavior_sources.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { unpackEvent } from "../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

Deno.test("sources: utm_source or referrer 'constructor', '__proto__', 'toString' are sources by their own name", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
  const app = createApp(deps);
  try {
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const cases: Record<string, Record<string, unknown>> = {
      a: { url: "https://acme.test/?utm_source=constructor&utm_medium=email" },
      b: { url: "https://acme.test/", referrer: "https://constructor.com/page" },
      c: { url: "https://acme.test/", referrer: "https://www.constructor.io/" },
      d: { url: "https://acme.test/?utm_source=toString" },
      e: { url: "https://acme.test/?utm_source=__proto__" },
      f: { url: "https://acme.test/?utm_source=google&utm_medium=cpc" }, // a known one still is
    };
    const res = await app.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({
        api_key: t.publicKey,
        batch: Object.entries(cases).map(([id, p]) =>
          event({ anonymous_id: id, session_id: id, properties: { path: "/", ...p } })
        ),
      }),
    });
    assert.equal(res.status, 204, await res.text());
    const stored = new Map<string, StoredEvent>();
    for await (const e of deps.kv.list<Uint8Array>({ prefix: keys.rawEvents(t.org, "production") })) {
      const ev = unpackEvent(e.value);
      stored.set(ev.anonymous_id, ev);
    }
    const got = (id: string) => [stored.get(id)!.source, stored.get(id)!.channel];
    assert.deepEqual(got("a"), ["constructor", "Email"]);
    assert.deepEqual(got("b"), ["constructor.com", "Referral"]);
    assert.deepEqual(got("c"), ["constructor.io", "Referral"]);
    assert.deepEqual(got("d"), ["tostring", "Referral"]); // unknown sources are kept lower-cased
    assert.deepEqual(got("e"), ["__proto__", "Referral"]);
    assert.deepEqual(got("f"), ["google", "Paid Search"]);
    const read = await app.request("/v1/read/behavior_sources", {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "today" }),
    });
    const text = await read.text();
    assert.equal(read.status, 200, text);
    assert.ok(!text.includes('"Object"'), text.slice(0, 400));
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
