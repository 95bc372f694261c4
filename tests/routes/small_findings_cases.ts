/**
 * Issue 32, finding 9: the 403 of a form sent from another origin carries every page's security headers;
 * the admin API refuses to create a read key that has already expired.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

Deno.test("csrf: a cross-origin form post is a 403 with the same security headers as every page", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const res = await app.request("/app/sign-in", {
    method: "POST",
    headers: { origin: "https://evil.test", "content-type": "application/x-www-form-urlencoded" },
    body: "email=a%40b.test&password=x",
  });
  assert.equal(res.status, 403);
  const page = await app.request("/app/sign-in");
  for (
    const h of ["Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"]
  ) {
    assert.ok(res.headers.get(h), `403 lacks ${h}`);
    assert.equal(res.headers.get(h), page.headers.get(h), h);
  }
  deps.kv.close();
});

Deno.test("admin: a read key whose expires_at has passed is refused with a 422 naming it", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const create = (expires_at: string) =>
    app.request(`/admin/v1/orgs/${t.org}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ kind: "read", environment: "production", expires_at }),
    });
  const past = await create(new Date(deps.clock.now() - 1_000).toISOString());
  const body = await past.json();
  assert.equal(past.status, 422, JSON.stringify(body));
  assert.match(body.error, /expires_at: .* has passed/);
  assert.equal((await create(new Date(deps.clock.now() + 86_400_000).toISOString())).status, 201);
  deps.kv.close();
});
