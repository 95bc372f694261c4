import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { siteLines } from "../../lib/demo/site.ts";

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

    // people: an invitation's link, then the members and open invitations
    const invited = JSON.parse((await cli("invite", org.id, "ann@example.com", "admin")).out);
    assert.match(invited.invitation_url, /\/app\/invite\//);
    const people = JSON.parse((await cli("members", org.id)).out);
    assert.deepEqual(people.invitations.map((i: { email: string }) => i.email), ["ann@example.com"]);

    // a history file, plain and gzipped: the second is all duplicates
    const dir = await Deno.makeTempDir();
    const lines = [...siteLines({
      org: org.id,
      touchpoint: tp.id,
      host: "shop.test",
      events: 60,
      hits: 6,
      days: 3,
      seed: 5,
      end: Date.now(),
    })].join("\n") + "\n";
    await Deno.writeTextFile(`${dir}/h.ndjson`, lines);
    const gz = new Blob([lines]).stream().pipeThrough(new CompressionStream("gzip"));
    await Deno.writeFile(`${dir}/h.ndjson.gz`, gz);
    const first = await cli("import", org.id, tp.id, `${dir}/h.ndjson`);
    assert.equal(first.code, 0, first.err);
    assert.equal(JSON.parse(first.out).imported, 66);
    const again = await cli("import", org.id, tp.id, `${dir}/h.ndjson.gz`);
    assert.equal(again.code, 0, again.err);
    assert.deepEqual([JSON.parse(again.out).imported, JSON.parse(again.out).duplicates], [0, 66]);
    await Deno.remove(dir, { recursive: true });

    // said before any call, in one line: a missing argument, a value no field takes, an unknown command
    const missing = await cli("org:get");
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^org:get needs <org>/);
    const yes = await cli("env:set", org.id, tp.id, "staging", "enabled=yes");
    assert.equal(yes.code, 2);
    assert.match(yes.err, /^enabled=yes: use enabled=true or enabled=false/);
    const unknown = await cli("org:delete", org.id);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /^unknown command org:delete/);
  } finally {
    await srv.stop();
  }
});
