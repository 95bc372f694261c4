import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { testDeps } from "../helpers/deps.ts";
import { REGISTRATIONS_PER_MINUTE } from "../../routes/oauth.ts";

async function setup(config: Record<string, unknown> = {}) {
  const deps = await testDeps();
  deps.config = { ...deps.config, ...config } as typeof deps.config;
  return { deps, app: createApp(deps) };
}

Deno.test("oauth discovery: protected resource metadata at the path form and the root form", async () => {
  const { deps, app } = await setup();
  for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
    const res = await app.request(path, { headers: { origin: "https://inspector.example" } });
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const doc = await res.json();
    assert.equal(doc.resource, "http://localhost/mcp");
    assert.deepEqual(doc.authorization_servers, ["http://localhost"]);
    assert.deepEqual(doc.scopes_supported, ["read"]);
    assert.deepEqual(doc.bearer_methods_supported, ["header"]);
  }
  deps.kv.close();
});

Deno.test("oauth discovery: authorization server metadata (RFC 8414 and the OpenID path) names every endpoint", async () => {
  const { deps, app } = await setup({ publicUrl: "https://analytics.example.com" });
  for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
    const doc = await (await app.request(path)).json();
    assert.equal(doc.issuer, "https://analytics.example.com");
    assert.equal(doc.authorization_endpoint, "https://analytics.example.com/oauth/authorize");
    assert.equal(doc.token_endpoint, "https://analytics.example.com/oauth/token");
    assert.equal(doc.registration_endpoint, "https://analytics.example.com/oauth/register");
    assert.equal(doc.revocation_endpoint, "https://analytics.example.com/oauth/revoke");
    assert.deepEqual(doc.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(doc.response_types_supported, ["code"]);
    assert.deepEqual(doc.grant_types_supported, ["authorization_code", "refresh_token"]);
    assert.equal(doc.client_id_metadata_document_supported, true);
    assert.equal(doc.authorization_response_iss_parameter_supported, true);
    assert.ok(doc.token_endpoint_auth_methods_supported.includes("none"));
  }
  const prm = await (await app.request("/.well-known/oauth-protected-resource/mcp")).json();
  assert.equal(prm.resource, "https://analytics.example.com/mcp");
  const pre = await app.request("/oauth/token", {
    method: "OPTIONS",
    headers: { origin: "https://inspector.example", "access-control-request-method": "POST" },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  deps.kv.close();
});

async function register(app: ReturnType<typeof createApp>, body: unknown) {
  const res = await app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

Deno.test("oauth registration (RFC 7591): keeps https and loopback redirects, drops the rest, says which it kept", async () => {
  const { deps, app } = await setup();
  const r = await register(app, {
    client_name: "Cursor",
    redirect_uris: [
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://www.cursor.com/agents/mcp/oauth/callback",
      "http://localhost:8787/callback",
      "http://evil.example/cb",
    ],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    application_type: "native",
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.match(r.body.client_id, /^oc_/);
  assert.deepEqual(r.body.redirect_uris, [
    "https://www.cursor.com/agents/mcp/oauth/callback",
    "http://localhost:8787/callback",
  ]);
  assert.equal(r.body.client_secret, undefined);
  assert.equal(r.body.token_endpoint_auth_method, "none");
  assert.equal(r.headers.get("cache-control"), "no-store");
  deps.kv.close();
});

Deno.test("oauth registration: refusals name the problem", async () => {
  const { deps, app } = await setup();
  let r = await register(app, { redirect_uris: ["http://example.com/cb", "myapp://cb"] });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_redirect_uri"]);
  assert.match(r.body.error_description, /neither https nor http on a loopback host/);
  r = await register(app, { redirect_uris: ["https://app.example/cb#frag"] });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_redirect_uri"]);
  r = await register(app, { redirect_uris: [] });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_client_metadata"]);
  assert.match(r.body.error_description, /redirect_uris/);
  r = await register(app, {
    redirect_uris: ["https://app.example/cb"],
    token_endpoint_auth_method: "private_key_jwt",
  });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_client_metadata"]);
  assert.match(r.body.error_description, /private_key_jwt/);
  r = await register(app, { redirect_uris: ["https://app.example/cb"], grant_types: ["client_credentials"] });
  assert.deepEqual([r.status, r.body.error], [400, "invalid_client_metadata"]);
  r = await register(app, "not json");
  assert.deepEqual([r.status, r.body.error], [400, "invalid_client_metadata"]);
  deps.kv.close();
});

Deno.test("oauth registration: a client with a secret gets it once and must present it", async () => {
  const { deps, app } = await setup();
  const r = await register(app, {
    redirect_uris: ["https://app.example/cb"],
    token_endpoint_auth_method: "client_secret_basic",
  });
  assert.equal(r.status, 201);
  assert.match(r.body.client_secret, /^svc_cs_/);
  assert.equal(r.body.client_secret_expires_at, 0);
  const token = (headers: HeadersInit, extra: Record<string, string> = {}) =>
    app.request("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "svc_rt_x", ...extra })
        .toString(),
    });
  const none = await token({}, { client_id: r.body.client_id });
  assert.equal(none.status, 401);
  assert.equal((await none.json()).error, "invalid_client");
  const wrong = await token({ authorization: "Basic " + btoa(`${r.body.client_id}:nope`) });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate")!, /^Basic/);
  const right = await token({
    authorization: "Basic " + btoa(`${r.body.client_id}:${r.body.client_secret}`),
  });
  assert.equal(right.status, 400); // authenticated; the refresh token itself is unknown
  assert.equal((await right.json()).error, "invalid_grant");
  deps.kv.close();
});

Deno.test("oauth registration: limited per address and minute", async () => {
  const { deps, app } = await setup();
  for (let i = 0; i < REGISTRATIONS_PER_MINUTE; i++) {
    assert.equal((await register(app, { redirect_uris: ["https://app.example/cb"] })).status, 201);
  }
  const r = await register(app, { redirect_uris: ["https://app.example/cb"] });
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers.get("retry-after")) >= 1);
  deps.clock.advance(61_000);
  assert.equal((await register(app, { redirect_uris: ["https://app.example/cb"] })).status, 201);
  deps.kv.close();
});
