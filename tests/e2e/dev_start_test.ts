import assert from "node:assert/strict";
import { startDevServer } from "../helpers/server.ts";

Deno.test("e2e dev: `task dev` creates the demo organization with a generated site and prints working keys and calls", async () => {
  const { out, stop } = await startDevServer();
  try {
    const base = out.match(/Service running at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
    const readKey = out.match(/svc_rk_prod_[A-Za-z0-9_-]+/)?.[0];
    const publicKey = out.match(/public write key\s+(svc_pk_[A-Za-z0-9_-]+)/)?.[1];
    assert.ok(base && readKey && publicKey, out);
    assert.match(out, /admin token\s+dev_admin_/);
    // the banner names the KV file in use (KV_PATH here), not the default folder
    assert.match(out, /\(KV file \/[^;]*\/kv\.sqlite3; demo organization/);
    assert.match(out, /mcpServers/);

    const overview = await fetch(`${base}/v1/read/behavior_overview`, {
      method: "POST",
      headers: { authorization: `Bearer ${readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "last_7_days", touchpoint: "demo-shop.test" }),
    });
    assert.equal(overview.status, 200);
    const body = await overview.json();
    assert.ok(body.visitors.value > 0, "the demo site has visitors to talk about");
    const themes = await fetch(`${base}/v1/read/feedback_themes`, {
      method: "POST",
      headers: { authorization: `Bearer ${readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ period: "last_28_days" }),
    });
    const tb = await themes.json();
    assert.equal(themes.status, 200, JSON.stringify(tb));
    assert.ok(tb.apps[0].app.own && tb.apps[0].themes.length > 0, "the demo's own app has review themes");

    // The printed web-event curl works as printed.
    const curlLine = out.split("\n").find((l) => l.includes("/v1/behavior/events"))!;
    const origin = curlLine.match(/Origin: ([^']+)'/)?.[1];
    const next = out.split("\n")[out.split("\n").indexOf(curlLine) + 1];
    const json = next.match(/-d '(.+)'$/)?.[1];
    const res = await fetch(`${base}/v1/behavior/events`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: origin! },
      body: json!,
    });
    assert.equal(res.status, 204);

    // The printed demo owner signs in to the app.
    const owner = out.match(/sign in as (\S+), password (\S+)\)/);
    assert.ok(owner, out);
    const signIn = await fetch(`${base}/app/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base! },
      body: new URLSearchParams({ email: owner[1], password: owner[2] }),
      redirect: "manual",
    });
    await signIn.body?.cancel();
    assert.equal(signIn.status, 303);
    assert.match(signIn.headers.get("set-cookie") ?? "", /^svc_session=/);
  } finally {
    await stop();
  }
});
