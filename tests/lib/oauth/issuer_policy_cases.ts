/**
 * Issue 32, finding 8: the issuer comes from configuration in production. A self-hosted production start
 * without PUBLIC_URL pins it to the listening address and logs that; it never follows a Host header.
 */
import assert from "node:assert/strict";
import { issuerPolicy } from "../../../lib/oauth/urls.ts";
import { startServer } from "../../helpers/server.ts";
import { rawRequest, wire } from "../../helpers/raw_http.ts";

Deno.test("issuer policy: PUBLIC_URL wins; dev and Deno Deploy follow the request; else pinned and logged", () => {
  const set = issuerPolicy({ publicUrl: "https://a.example", dev: false }, {}, 8000);
  assert.deepEqual(set, { publicUrl: "https://a.example", warning: null });
  assert.deepEqual(issuerPolicy({ publicUrl: null, dev: true }, {}, 8000), {
    publicUrl: null,
    warning: null,
  });
  assert.equal(
    issuerPolicy({ publicUrl: null, dev: false }, { DENO_DEPLOYMENT_ID: "x" }, 8000).publicUrl,
    null,
  );
  const pinned = issuerPolicy({ publicUrl: null, dev: false }, {}, 8123);
  assert.equal(pinned.publicUrl, "http://127.0.0.1:8123");
  assert.match(pinned.warning!, /PUBLIC_URL is not set/);
});

Deno.test("issuer policy: a production start without PUBLIC_URL answers discovery with its own origin, whatever the Host", async () => {
  const srv = await startServer();
  try {
    const port = new URL(srv.url).port;
    for (const host of ["evil.test", "127.0.0.1:" + port]) {
      const res = await rawRequest(
        Number(port),
        wire("GET", "/.well-known/oauth-authorization-server", { Host: host }),
      );
      const meta = JSON.parse(res.body);
      assert.equal(meta.issuer, srv.url, `Host ${host}`);
      assert.equal(meta.token_endpoint, `${srv.url}/oauth/token`);
    }
  } finally {
    await srv.stop();
  }
});
