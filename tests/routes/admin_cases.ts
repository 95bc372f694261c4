import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall } from "../helpers/tenant.ts";

async function setup() {
  const app = createApp(await testDeps());
  const call = (method: string, path: string, body?: unknown, token = TEST_ADMIN_TOKEN) =>
    app.request(`/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { app, call };
}

Deno.test("admin: 401 with the Error body without the right token", async () => {
  const { app, call } = await setup();
  for (
    const res of [
      await call("POST", "/orgs", { name: "x" }, "wrong-token-wrong-token"),
      await app.request("/admin/v1/orgs/x"),
    ]
  ) {
    assert.equal(res.status, 401);
    const body = await res.json();
    assert.equal(body.code, "UNAUTHORIZED");
    assert.ok(body.error && body.timestamp);
  }
});

Deno.test("admin: organizations are created with defaults, read and patched", async () => {
  const { call } = await setup();
  const res = await call("POST", "/orgs", { name: "Acme" });
  assert.equal(res.status, 201);
  const org = await res.json();
  assert.match(org.id, /^org_/);
  assert.equal(org.plan, "professional");
  assert.equal(org.timezone, "UTC");
  const patched =
    await (await call("PATCH", `/orgs/${org.id}`, { plan: "free", timezone: "Europe/Paris", active: false }))
      .json();
  assert.deepEqual([patched.plan, patched.timezone, patched.active], ["free", "Europe/Paris", false]);
  assert.equal((await (await call("GET", `/orgs/${org.id}`)).json()).timezone, "Europe/Paris");
});

Deno.test("admin: 422 names the bad field; 404 for unknown ids", async () => {
  const { call } = await setup();
  const cases: [string, string, unknown, string][] = [
    ["POST", "/orgs", { name: "" }, "name"],
    ["POST", "/orgs", { name: "x", plan: "gold" }, "plan"],
    ["POST", "/orgs", { name: "x", timezone: "Mars/Base" }, "timezone"],
    ["POST", "/orgs", { name: "x", extra: 1 }, "extra"],
  ];
  for (const [m, p, b, field] of cases) {
    const res = await call(m, p, b);
    assert.equal(res.status, 422);
    assert.ok((await res.json()).error.includes(field), field);
  }
  const org = await (await call("POST", "/orgs", { name: "Acme" })).json();
  const tpRes = await call("POST", `/orgs/${org.id}/touchpoints`, { name: "site", kind: "website" });
  assert.equal(tpRes.status, 422);
  assert.ok((await tpRes.json()).error.includes("domain"));
  assert.equal((await call("GET", "/orgs/org_nope")).status, 404);
  assert.equal((await call("PATCH", `/orgs/${org.id}/touchpoints/tp_nope`, { archived: true })).status, 404);
  assert.equal((await call("DELETE", `/orgs/${org.id}/keys/key_nope`)).status, 404);
  const keyRes = await call("POST", `/orgs/${org.id}/keys`, { kind: "public", environment: "production" });
  assert.equal(keyRes.status, 422);
  assert.ok((await keyRes.json()).error.includes("touchpoint"));
});

Deno.test("admin: touchpoints carry their environments; keys have the documented prefixes and are shown once", async () => {
  const { app, call } = await setup();
  const org = await adminCall(app, TEST_ADMIN_TOKEN, "POST", "/orgs", { name: "Acme" });
  const tp = await adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org.id}/touchpoints`, {
    name: "site",
    kind: "website",
    domain: "Acme.test",
    environments: { staging: { domain: "staging.acme.test" } },
  });
  assert.equal(tp.archived, false);
  assert.deepEqual(tp.environments.production, { domain: "acme.test", enabled: true });
  assert.deepEqual(tp.environments.staging, { domain: "staging.acme.test", enabled: true });
  const mk = (body: Record<string, unknown>) =>
    adminCall(app, TEST_ADMIN_TOKEN, "POST", `/orgs/${org.id}/keys`, body);
  const pub = await mk({ kind: "public", environment: "production", touchpoint: tp.id });
  const sk = await mk({ kind: "server", environment: "staging", touchpoint: tp.id });
  const rk = await mk({ kind: "read", environment: "production" });
  const rkDev = await mk({ kind: "read", environment: "development" });
  assert.match(pub.key, /^svc_pk_[A-Za-z0-9_-]{8,120}$/);
  assert.match(sk.key, /^svc_sk_stg_/);
  assert.match(rk.key, /^svc_rk_prod_/);
  assert.match(rkDev.key, /^svc_rk_dev_/);
  assert.equal(pub.touchpoint, tp.id);
  const listRes = await call("GET", `/orgs/${org.id}/keys`);
  const text = await listRes.text();
  for (const k of [pub.key, sk.key, rk.key]) assert.ok(!text.includes(k), "no secret in the listing");
  const list = JSON.parse(text).keys;
  assert.equal(list.length, 4);
  assert.ok(list.every((k: { prefix: string }) => k.prefix.startsWith("svc_")));
  // a server key needs an existing environment; read keys need a paid plan
  const noEnv = await call("POST", `/orgs/${org.id}/keys`, {
    kind: "server",
    environment: "development",
    touchpoint: tp.id,
  });
  assert.equal(noEnv.status, 422);
  await adminCall(app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${org.id}`, { plan: "free" });
  const freeRead = await call("POST", `/orgs/${org.id}/keys`, { kind: "read", environment: "production" });
  assert.equal(freeRead.status, 422);
  // revoke
  assert.equal((await call("DELETE", `/orgs/${org.id}/keys/${pub.id}`)).status, 204);
  const after = (await (await call("GET", `/orgs/${org.id}/keys`)).json()).keys;
  assert.equal(after.find((k: { id: string }) => k.id === pub.id).revoked, true);
});

Deno.test("health and openapi: /healthz answers; openapi.json is OpenAPI 3.1, version 1.0.0, with the ingest schema", async () => {
  const { app } = await setup();
  assert.equal((await app.request("/healthz")).status, 200);
  const doc = await (await app.request("/openapi.json")).json();
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1.0.0");
  const schema = doc.paths["/v1/behavior/events"].post.requestBody.content["application/json"].schema;
  assert.equal(schema.additionalProperties, false);
  assert.equal(schema.properties.batch.maxItems, 200);
  assert.deepEqual(schema.required.sort(), ["api_key", "batch"]);
});
