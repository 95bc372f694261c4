/**
 * Malformed HTTP Basic client credentials at the token and revocation endpoints are a failed client
 * authentication (401 invalid_client, WWW-Authenticate: Basic), never a 500 (found in review: atob and
 * decodeURIComponent threw past the OAuth error shape). Real KV file, the app's HTTP interface.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { testDeps } from "../../helpers/deps.ts";

Deno.test("oauth: malformed Basic credentials answer 401 invalid_client at /oauth/token and /oauth/revoke", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  try {
    const deps = await testDeps({ kv });
    const app = createApp(deps);
    const headers = [
      "Basic a", // not base64
      "Basic " + btoa("%zz:secret"), // a broken %-escape in the id
      "Basic " + btoa("oc_abcdefgh:%E0%A4%A"), // a broken %-escape in the secret
      "Basic " + btoa("no-colon-here"),
    ];
    for (const authorization of headers) {
      for (const path of ["/oauth/token", "/oauth/revoke"]) {
        const res = await app.request(path, {
          method: "POST",
          headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=authorization_code&code=x&token=y",
        });
        const body = await res.json();
        assert.equal(res.status, 401, `${path} ${authorization}: ${JSON.stringify(body)}`);
        assert.equal(body.error, "invalid_client", path);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Basic/, path);
      }
    }
    assert.deepEqual(deps.log.lines.filter((l) => l.includes('"level":"error"')), []);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
