/**
 * The real entry point under Deno Deploy's permissions (`--allow-net --allow-env --allow-read --allow-sys`:
 * no write, no subprocess) with an in-memory KV: it starts, loads the prebuilt geo index and serves.
 */
import assert from "node:assert/strict";
import { DEPLOY_PERMISSIONS, startServer } from "../helpers/server.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

Deno.test("e2e deploy: main.ts starts with Deploy's permissions and KV_PATH=:memory:, geo from the prebuilt index", async () => {
  const srv = await startServer({
    permissions: DEPLOY_PERMISSIONS,
    env: { KV_PATH: ":memory:", GEO_CITY_MMDB: "", GEO_ASN_CSV: "", TRUST_PROXY: "true" },
  });
  try {
    const api = { request: (p: string, i?: RequestInit) => fetch(srv.url + p, i) };
    const t = await createTenant(api, srv.adminToken);
    const res = await fetch(`${srv.url}/v1/behavior/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "https://acme.test",
        "x-forwarded-for": "8.8.8.8",
      },
      body: JSON.stringify({ api_key: t.publicKey, batch: [event()] }),
    });
    assert.equal(res.status, 204, await res.text());
    const listed = await fetch(`${srv.url}/admin/v1/orgs/${t.org}/events`, {
      headers: { authorization: `Bearer ${srv.adminToken}` },
    });
    const [stored] = (await listed.json()).events;
    assert.equal(stored.geo.country, "US");
    assert.equal(stored.geo.asn, 15169);
  } finally {
    await srv.stop();
  }
});
