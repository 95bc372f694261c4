import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall } from "../helpers/tenant.ts";

Deno.test("admin people: an organization's first owner is invited; the link is answered and mailed", async () => {
  const deps = await testDeps({
    config: { ...(await testDeps()).config, publicUrl: "https://behavior.example.com" },
  });
  const app = createApp(deps);
  const call = (method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN) =>
    app.request(`/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const org = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Acme" });
  const res = await call("POST", `/orgs/${org.id}/invitations`, { email: "Owner@Acme.test", role: "owner" });
  assert.equal(res.status, 201);
  const inv = await res.json();
  assert.equal(inv.email, "owner@acme.test");
  assert.equal(inv.role, "owner");
  assert.match(inv.invitation_url, /^https:\/\/behavior\.example\.com\/app\/invite\/[A-Za-z0-9_-]{43}$/);
  assert.equal(inv.expires_at, new Date(deps.clock.now() + 7 * 86_400_000).toISOString());
  const mail = deps.mail.sent[0];
  assert.equal(mail.to, "owner@acme.test");
  assert.ok(mail.text.includes(inv.invitation_url));
  assert.match(mail.subject, /invited to Acme/);

  const listed = await (await call("GET", `/orgs/${org.id}/members`)).json();
  assert.deepEqual(listed.members, []);
  assert.equal(listed.invitations[0].email, "owner@acme.test");
  assert.ok(!JSON.stringify(listed).includes(inv.invitation_url.split("/").at(-1)), "the link is not listed");

  const bad = await call("POST", `/orgs/${org.id}/invitations`, { email: "x@acme.test", role: "king" });
  assert.equal(bad.status, 422);
  assert.match((await bad.json()).error, /role/);
  const noEmail = await call("POST", `/orgs/${org.id}/invitations`, { email: "nope", role: "member" });
  assert.match((await noEmail.json()).error, /email/);
  assert.equal(
    (await call("POST", "/orgs/org_missing/invitations", { email: "a@b.test", role: "owner" })).status,
    404,
  );
  assert.equal(
    (await call("POST", `/orgs/${org.id}/invitations`, { email: "a@b.test", role: "owner" }, "x".repeat(20)))
      .status,
    401,
  );
  deps.kv.close();
});
