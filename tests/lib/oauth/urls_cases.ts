import assert from "node:assert/strict";
import { endpoints, redirectMatches, redirectUriProblem } from "../../../lib/oauth/urls.ts";
import { ConfigError, readConfig } from "../../../lib/config.ts";

Deno.test("redirect URIs: https anywhere, http only on loopback, no fragments or credentials", () => {
  for (
    const ok of [
      "https://claude.ai/api/mcp/auth_callback",
      "http://127.0.0.1:33418/",
      "http://localhost/cb",
      "http://[::1]:5000/cb",
    ]
  ) {
    assert.equal(redirectUriProblem(ok), null, ok);
  }
  for (
    const bad of [
      "http://example.com/cb",
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://a.example/cb#x",
      "https://u:p@a.example/cb",
      "javascript:alert(1)",
      "/relative",
      "",
    ]
  ) {
    assert.notEqual(redirectUriProblem(bad), null, bad);
  }
});

Deno.test("redirect URIs: matched exactly, except that a loopback redirect may use any port", () => {
  const reg = ["https://app.example/cb", "http://127.0.0.1/callback"];
  assert.ok(redirectMatches(reg, "https://app.example/cb"));
  assert.ok(!redirectMatches(reg, "https://app.example/cb/"));
  assert.ok(!redirectMatches(reg, "https://app.example/cb?x=1"));
  assert.ok(!redirectMatches(reg, "https://app.example:8443/cb"));
  assert.ok(redirectMatches(reg, "http://127.0.0.1:51234/callback"));
  assert.ok(!redirectMatches(reg, "http://127.0.0.1:51234/other"));
  assert.ok(!redirectMatches(reg, "http://localhost:51234/callback"), "loopback host must match too");
  assert.ok(!redirectMatches(reg, "https://127.0.0.1:51234/callback"));
});

Deno.test("endpoints: PUBLIC_URL names the issuer and resource; else the request's origin", () => {
  assert.equal(
    endpoints({ publicUrl: null }, "http://127.0.0.1:8000/x?y").resource,
    "http://127.0.0.1:8000/mcp",
  );
  const e = endpoints({ publicUrl: "https://a.example" }, "http://10.0.0.1/x");
  assert.equal(e.issuer, "https://a.example");
  assert.equal(e.resourceMetadata, "https://a.example/.well-known/oauth-protected-resource/mcp");
  assert.equal(
    readConfig({ ADMIN_TOKEN: "x".repeat(16), PUBLIC_URL: "https://a.example/" }).publicUrl,
    "https://a.example",
  );
  assert.throws(
    () => readConfig({ ADMIN_TOKEN: "x".repeat(16), PUBLIC_URL: "https://a.example/app" }),
    ConfigError,
  );
  assert.throws(
    () => readConfig({ ADMIN_TOKEN: "x".repeat(16), PUBLIC_URL: "ftp://a.example" }),
    ConfigError,
  );
  assert.equal(readConfig({ ADMIN_TOKEN: "x".repeat(16) }).oauthAllowLoopbackClients, false);
});
