/**
 * Issue 32, finding 6: a Host header that is not an authority never costs a 500 (it is a 400 naming the
 * Host), and a JSON body nested thousands of levels deep is refused by the body guard before anything
 * recursive sees it, on OAuth registration as on every other endpoint that reads JSON.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { rawRequest, wire } from "../helpers/raw_http.ts";

const BAD_HOSTS = ["127.0.0.1:99999", "a b", "[::1", "x/y", "a@b", "a?b", ""];
const PATHS = [
  "/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource/mcp",
  "/app",
  "/oauth/authorize?client_id=oc_12345678&redirect_uri=http://127.0.0.1:1/cb",
  "/healthz",
  "/v1/behavior/events",
];

Deno.test("host: a Host that is not an authority is a 400 naming it on every endpoint, never a 500", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  try {
    for (const host of BAD_HOSTS) {
      for (const path of PATHS) {
        const res = await rawRequest(server.addr.port, wire("GET", path, host === "" ? {} : { Host: host }));
        if (host === "") {
          // no Host at all: the server fills in its own, an ordinary request
          assert.ok(res.status > 0 && res.status < 500, `no Host ${path}: ${res.status}`);
          continue;
        }
        assert.equal(res.status, 400, `Host ${JSON.stringify(host)} ${path}: ${res.status} ${res.body}`);
        const body = JSON.parse(res.body);
        assert.equal(body.code, "VALIDATION_ERROR");
        assert.match(body.error, /Host/);
      }
    }
    // an ordinary Host with a port still works
    const ok = await rawRequest(server.addr.port, wire("GET", "/healthz", { Host: "127.0.0.1:8000" }));
    assert.equal(ok.status, 200);
    const named = await rawRequest(server.addr.port, wire("GET", "/healthz", { Host: "Example.COM" }));
    assert.equal(named.status, 200);
    const v6 = await rawRequest(server.addr.port, wire("GET", "/healthz", { Host: "[::1]:8080" }));
    assert.equal(v6.status, 200);
  } finally {
    await server.shutdown();
    deps.kv.close();
  }
  assert.ok(
    !deps.log.lines.some((l) => l.includes(`"level":"error"`)),
    "nothing logged as an unexpected error",
  );
});

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

Deno.test("body guard: /oauth/register nested 3,000 deep is a 400 invalid_client_metadata naming the depth", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  for (const body of [deep(3_000), `{"redirect_uris":${deep(3_000)}}`, deepObject(2_000)]) {
    const res = await app.request("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    assert.equal(res.status, 400, await res.clone().text());
    const json = await res.json();
    assert.equal(json.error, "invalid_client_metadata");
    assert.match(json.error_description, /nested deeper than \d+ levels/);
  }
  deps.kv.close();
});

Deno.test("body guard: admin and read bodies nested 3,000 deep are a 422 naming the depth; ingest a 4xx", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const cases: [string, Record<string, string>][] = [
    ["/admin/v1/orgs", { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }],
    ["/v1/behavior/server-events", { authorization: `Bearer ${t.serverKey}` }],
    ["/v1/behavior/events", { "x-api-key": t.publicKey, origin: "https://acme.test" }],
    ["/v1/read/behavior_overview", { authorization: `Bearer ${t.readKey}` }],
  ];
  for (const [path, headers] of cases) {
    for (const body of [deep(3_000), deepObject(3_000)]) {
      const res = await app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const text = await res.text();
      assert.ok(res.status === 422 || res.status === 400, `${path}: ${res.status} ${text}`);
      assert.equal(JSON.parse(text).code, "VALIDATION_ERROR");
      // ingest names the path inside each event (tests/routes/bad_input_test.ts); the rest refuse the body
      if (!path.startsWith("/v1/behavior")) {
        assert.match(text, /body: nested deeper than 64 levels/, `${path}: ${text}`);
      }
    }
  }
  deps.kv.close();
});

Deno.test("body guard: /mcp with a JSON-RPC message nested 3,000 deep is refused, never a 500", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const res = await app.request("/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${t.readKey}`,
    },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deepObject(3_000)}}`,
  });
  const text = await res.text();
  assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${text}`);
  assert.match(text, /nested deeper than \d+ levels/);
  deps.kv.close();
});
