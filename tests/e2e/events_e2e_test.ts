import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { createTenant, type Tenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

Deno.test("e2e events: the real server on a KV file stores a batch once, refuses bad input, keeps data across a restart", async () => {
  const dir = await Deno.makeTempDir();
  const srv = await startServer({ kvPath: `${dir}/kv.sqlite3` });
  let t: Tenant;
  try {
    const api = { request: (p: string, i?: RequestInit) => fetch(srv.url + p, i) };
    t = await createTenant(api, srv.adminToken);
    const batch = Array.from({ length: 20 }, (_, i) => event({ sequence_no: i }));
    const send = (body: unknown, origin = "https://acme.test") =>
      fetch(`${srv.url}/v1/behavior/events`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify(body),
      });
    const first = await send({ api_key: t.publicKey, batch });
    assert.equal(first.status, 204);
    await first.body?.cancel();
    const retry = await send({ api_key: t.publicKey, batch });
    assert.equal(retry.status, 204);
    await retry.body?.cancel();
    const bad = await send({ api_key: t.publicKey, batch: [{ ...batch[0], event_id: "nope" }] });
    assert.equal(bad.status, 422);
    assert.match((await bad.json()).error, /batch\[0\]\.event_id/);
    const forbidden = await send({ api_key: t.publicKey, batch }, "https://elsewhere.test");
    assert.equal(forbidden.status, 403);
    await forbidden.body?.cancel();

    const listed = await fetch(`${srv.url}/admin/v1/orgs/${t.org}/events?limit=100`, {
      headers: { authorization: `Bearer ${srv.adminToken}` },
    });
    const { events } = await listed.json();
    assert.equal(events.length, 20);
    assert.ok(events.every((e: { ip?: unknown }) => !("ip" in e)));
  } finally {
    await srv.stop();
  }
  // A restart on the same file keeps keys and events: the retried batch is still a duplicate.
  const again = await startServer({ kvPath: `${dir}/kv.sqlite3`, env: { ADMIN_TOKEN: srv.adminToken } });
  try {
    const res = await fetch(`${again.url}/v1/behavior/events`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({ api_key: t.publicKey, batch: [event({ sequence_no: 99 })] }),
    });
    assert.equal(res.status, 204);
    const { events } = await (await fetch(`${again.url}/admin/v1/orgs/${t.org}/events?limit=100`, {
      headers: { authorization: `Bearer ${srv.adminToken}` },
    })).json();
    assert.equal(events.length, 21);
  } finally {
    await again.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("e2e start: refuses to start without ADMIN_TOKEN and names the variable", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}main.ts`],
    cwd: root,
    env: { PORT: "0", KV_PATH: ":memory:", ADMIN_TOKEN: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /ADMIN_TOKEN/);
});
