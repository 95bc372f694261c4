import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("e2e admin CLI: create an organization, a website and a key, list and revoke it", async () => {
  const srv = await startServer();
  const cli = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}scripts/admin.ts`, ...args],
      env: { SVC_URL: srv.url, ADMIN_TOKEN: srv.adminToken },
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      out: new TextDecoder().decode(out.stdout),
      err: new TextDecoder().decode(out.stderr),
    };
  };
  try {
    const org = JSON.parse((await cli("org:create", "Shop", "starter", "Europe/Paris")).out);
    assert.equal(org.plan, "starter");
    const tp = JSON.parse((await cli("tp:create", org.id, "Shop site", "website", "shop.test")).out);
    assert.equal(tp.environments.production.domain, "shop.test");
    const key = JSON.parse((await cli("key:create", org.id, "server", "production", tp.id)).out);
    assert.match(key.key, /^svc_sk_prod_/);
    const listed = (await cli("key:list", org.id)).out;
    assert.ok(!listed.includes(key.key), "listing never shows the secret");
    assert.equal((await cli("key:revoke", org.id, key.id)).code, 0);
    assert.equal(JSON.parse((await cli("key:list", org.id)).out).keys[0].revoked, true);
    const compacted = await cli("compact", org.id);
    assert.equal(compacted.code, 0, compacted.err);
    assert.deepEqual(JSON.parse(compacted.out), { parts: 0, rows: 0, merged: 0 }); // nothing sent yet
    const bad = await cli("org:create", "");
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /422/);
  } finally {
    await srv.stop();
  }
});
