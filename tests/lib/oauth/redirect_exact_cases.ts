/**
 * Issue 32, finding 8: redirect URIs are compared exactly as registered and validated as URLs without
 * control characters; spellings the URL parser would normalize to a registered URI are refused.
 */
import assert from "node:assert/strict";
import { redirectMatches, redirectUriProblem } from "../../../lib/oauth/urls.ts";

Deno.test("redirect URIs: a URI with a NUL, a space, a tab or a newline is refused at registration", () => {
  for (
    const bad of [
      "\u0000http://127.0.0.1:8123/cb",
      " http://127.0.0.1:8123/cb",
      "https://a.example/cb\n",
      "https://a.ex\tample/cb",
      "https://a.example/c b",
    ]
  ) {
    assert.notEqual(redirectUriProblem(bad), null, JSON.stringify(bad));
  }
});

Deno.test("redirect URIs: authorize refuses other spellings of a registered URI", () => {
  const reg = ["http://127.0.0.1:8123/cb", "https://app.example/cb"];
  assert.ok(redirectMatches(reg, "http://127.0.0.1:8123/cb"));
  assert.ok(redirectMatches(reg, "http://127.0.0.1:9999/cb"), "a loopback redirect may use another port");
  for (
    const bad of [
      " http://127.0.0.1:8123/cb",
      "\u0000http://127.0.0.1:8123/cb",
      "http://127.0.0.1:8123/cb ",
      "HTTP://127.0.0.1:8123/cb",
      "http://127.1:8123/cb",
      "http://127.0.0.1:08123/cb",
      "http://127.0.0.1:8123/./cb",
      "http://0x7f.0.0.1:8123/cb",
      "HTTPS://app.example/cb",
      "https://APP.example/cb",
      "https://app.example/cb\t",
    ]
  ) {
    assert.ok(!redirectMatches(reg, bad), JSON.stringify(bad));
  }
});
