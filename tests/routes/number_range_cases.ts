/**
 * Issue 32, finding 7: a number JSON can write but a double cannot hold (1e400) is refused with a 422
 * naming it, never stored as null; and a derived element name is cut by code points, so no lone surrogate
 * is stored or served.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { keys } from "../../lib/store/keys.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const postEvents = (body: string) =>
    app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body,
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
  const stored = async () => {
    const out: unknown[] = [];
    for await (const e of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) out.push(e.value);
    return out;
  };
  return { deps, t, postEvents, stored };
}

Deno.test("number range: a property value 1e400 is a 422 naming the path; nothing stored as null", async () => {
  const { t, postEvents, stored } = await setup();
  for (const num of ["1e400", "-1e400"]) {
    for (const field of ["properties", "context"]) {
      const ev = JSON.stringify(event({ [field]: { plan: "__NUM__" } })).replace('"__NUM__"', num);
      const res = await postEvents(`{"api_key":"${t.publicKey}","batch":[${ev}]}`);
      const body = await res.json();
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(body.error, new RegExp(`batch\\[0\\]\\.${field}\\.plan: .*(range|finite)`));
    }
  }
  assert.equal((await stored()).length, 0);
});

Deno.test("number range: an element name from astral text is cut by code points, never leaving a lone surrogate", async () => {
  const { t, postEvents, stored } = await setup();
  const text = "😀".repeat(200);
  const ev = event({
    event_type: "$autocapture",
    properties: { path: "/", event_kind: "click" },
    fingerprint: { tag: "button", text, selector: "button" },
  });
  const res = await postEvents(JSON.stringify({ api_key: t.publicKey, batch: [ev] }));
  assert.ok(res.status < 300, await res.text());
  const all = JSON.stringify(await stored());
  assert.ok(all.isWellFormed(), "stored values are well-formed");
  assert.ok(!/\\ud83d(?!\\ude00)/.test(all), "no lone high surrogate escaped in the stored JSON");
});
