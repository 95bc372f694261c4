import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { adminCall, createTenant } from "../../helpers/tenant.ts";
import { AppClient } from "../../helpers/app_client.ts";

const count = (texts: string[], needle: string) => texts.reduce((n, t) => n + t.split(needle).length - 1, 0);

Deno.test("app secrets: no page or log line shows a password at all, or a key or link twice", async () => {
  // No mailer: links go to the operator log, as in production without SMTP_URL.
  const deps = await testDeps();
  delete (deps as { mail?: unknown }).mail;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const password = "Secret passphrase 1";
  const newPassword = "Secret passphrase 2";

  await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${t.org}/invitations`, {
    email: "ann@acme.test",
    role: "owner",
  });
  const logged = deps.log.lines.find((l) => l.includes("/app/invite/"))!;
  const invite = JSON.parse(logged).text.match(/http:\/\/localhost(\/app\/invite\/\S+)/)[1];
  assert.ok(!logged.includes("ann@acme.test"), "the log masks the recipient");
  assert.match(logged, /a\*\*\*@acme\.test/);

  const c = new AppClient(app);
  await c.open(invite);
  await c.submit(invite, { password, password2: password });
  await c.post("/app/sign-in", { email: "ann@acme.test", password: "a wrong one!" }, { csrf: null });
  const tp = `/app/o/${t.org}/settings/touchpoints/${t.touchpoint}`;
  const made = await c.submit(`${tp}/keys`, { kind: "server", environment: "production" });
  const key = made.html.match(/svc_sk_prod_[A-Za-z0-9_-]{40}/)![0];
  await c.open(tp);
  const pub = await c.submit(`${tp}/keys`, { kind: "public", environment: "production" });
  const publicKey = pub.html.match(/svc_pk_[A-Za-z0-9_-]{20,}/)![0];
  const rk = await c.submit(`/app/o/${t.org}/settings/read-keys`, { environment: "production" });
  const readKey = rk.html.match(/svc_rk_prod_[A-Za-z0-9_-]{40}/)![0];
  await c.open(`/app/o/${t.org}/settings/read-keys`);

  const anon = new AppClient(app);
  await anon.post("/app/reset", { email: "ann@acme.test" }, { csrf: null });
  const resetLine = deps.log.lines.find((l) => l.includes("/app/reset/"))!;
  const reset = JSON.parse(resetLine).text.match(/http:\/\/localhost(\/app\/reset\/\S+)/)[1];
  await anon.open(reset);
  await anon.submit(reset, { password: newPassword, password2: newPassword });
  await anon.open("/app/account");

  const pages = [...c.seen, ...anon.seen];
  const logs = deps.log.lines;
  for (const pw of [password, newPassword, "a wrong one!"]) {
    assert.equal(count(pages, pw) + count(logs, pw), 0, `a password appeared: ${pw}`);
  }
  for (const secret of [key, publicKey, readKey]) {
    assert.equal(count(pages, secret), 1, `${secret.slice(0, 8)} shown once`);
    assert.equal(count(logs, secret), 0);
  }
  const inviteToken = invite.split("/").at(-1);
  const resetToken = reset.split("/").at(-1);
  assert.equal(count(logs, inviteToken), 1, "the invitation link is logged once");
  assert.equal(count(logs, resetToken), 1, "the reset link is logged once");
  // A session token is never in a page or a log line.
  for (const token of [...c.cookies.values(), ...anon.cookies.values()]) {
    assert.equal(count(pages, token) + count(logs, token), 0);
  }
  // What is stored: hashes only.
  const stored: string[] = [];
  for await (const e of deps.kv.list({ prefix: [] })) {
    stored.push(JSON.stringify(e.value, (_, v) => typeof v === "bigint" ? String(v) : v));
  }
  for (const s of [password, newPassword, key, readKey, inviteToken, resetToken, ...c.cookies.values()]) {
    assert.equal(count(stored, s), 0, "never stored in clear");
  }
  deps.kv.close();
});
