/**
 * Blast radius: a record KV cannot read back (as the ~3,000-level values stored before ingest refused them)
 * or that our decoder refuses no longer stops an organization's reads, its admin listing or anyone's
 * compaction: it is moved aside, counted and shown to operators. A compaction that fails for one
 * organization is logged with its id and the pass goes on with the others.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { compactAll } from "../../../lib/jobs/compact.ts";
import { sweepPendingVerifications } from "../../../lib/jobs/verify.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { Org } from "../../../lib/store/records.ts";
import type { Deps } from "../../../lib/deps.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";

function unreadable(): unknown {
  let v: unknown = 1;
  for (let i = 0; i < 3_000; i++) v = { a: v };
  return v;
}

async function world(dns?: Deps["dns"]) {
  const deps = await testDeps();
  // Deps are fixed when the app is built (its context makes the crawler verifier from them), as in main.ts.
  if (dns) deps.dns = dns;
  const app = createApp(deps);
  const acme = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "acme.test", plan: "enterprise" });
  const shop = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "shop.test", plan: "enterprise" });
  const send = async (t: typeof acme, n: number) => {
    const res = await app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: `https://${t.domain}` },
        body: JSON.stringify({
          api_key: t.publicKey,
          batch: Array.from({ length: n }, (_, i) =>
            event({
              sequence_no: i,
              properties: { path: "/", url: `https://${t.domain}/` },
            })),
        }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
    assert.equal(res.status, 204);
  };
  const admin = (path: string) =>
    app.request(`/admin/v1${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const read = (t: typeof acme, tool: string) =>
    app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
      body: JSON.stringify(tool === "account_overview" ? {} : { period: "last_7_days" }),
    });
  return { deps, app, acme, shop, send, admin, read };
}

Deno.test("blast radius: an unreadable and an undecodable record are moved aside; reads, listing and compaction go on", async () => {
  const { deps, acme, shop, send, admin, read, app } = await world();
  await send(acme, 3);
  await send(shop, 2);
  const prefix = keys.rawEvents(acme.org, "production");
  const at = deps.clock.now();
  await deps.kv.set([...prefix, at, "ffffffff-0000-4000-8000-000000000001"], unreadable());
  await deps.kv.set([...prefix, at - 1, "ffffffff-0000-4000-8000-000000000002"], [
    99,
    "a layout of the future",
  ]);
  // before: the organization's reads failed forever (KV: "could not deserialize value")
  await assert.rejects(async () => {
    for await (const _ of deps.kv.list({ prefix })) { /* read the tail */ }
  }, /could not deserialize/);

  const overview = await read(acme, "behavior_overview");
  const body = await overview.json();
  assert.equal(overview.status, 200, JSON.stringify(body));
  const mcp = await app.request("/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${acme.readKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "behavior_pages", arguments: { period: "last_7_days" } },
    }),
  });
  const stream = await mcp.text();
  assert.equal(mcp.status, 200, stream);
  assert.ok(!stream.includes('"isError":true') && !stream.includes('"error"'), stream);
  const listed = await admin(`/orgs/${acme.org}/events`);
  assert.equal(listed.status, 200);
  assert.equal((await listed.json()).events.length, 3);

  // visible to operators: counted, with the key and why
  const q = await (await admin(`/orgs/${acme.org}/quarantine`)).json();
  assert.equal(q.count, 2);
  assert.deepEqual(q.records.map((r: { key: unknown[] }) => r.key.slice(4)).sort(), [
    ["ffffffff-0000-4000-8000-000000000001"],
    ["ffffffff-0000-4000-8000-000000000002"],
  ]);
  assert.ok(q.records.some((r: { reason: string }) => /KV cannot read/.test(r.reason)));
  assert.ok(
    q.records.some((r: { reason: string; value?: unknown }) => /not decodable/.test(r.reason) && r.value),
  );
  assert.ok(deps.log.lines.some((l) => l.includes("record quarantined") && l.includes(acme.org)));
  assert.equal((await (await admin(`/orgs/${shop.org}/quarantine`)).json()).count, 0);

  // compaction folds both organizations' good records
  deps.clock.advance(10 * 60_000);
  const report = await compactAll(deps);
  assert.equal(report.rows, 5);
  assert.equal(report.failed, 0);
});

Deno.test("blast radius: found by compaction first (no read before), the bad record is moved aside and every organization compacts", async () => {
  const { deps, acme, shop, send, admin } = await world();
  await send(acme, 3);
  await send(shop, 2);
  await deps.kv.set([...keys.rawHits(acme.org, "production"), deps.clock.now(), "bad-hit"], unreadable());
  await deps.kv.set([...keys.rawEvents(acme.org, "production"), deps.clock.now(), "bad-event"], unreadable());
  deps.clock.advance(10 * 60_000);
  const report = await compactAll(deps);
  assert.deepEqual({ rows: report.rows, failed: report.failed }, { rows: 5, failed: 0 });
  assert.equal((await (await admin(`/orgs/${acme.org}/quarantine`)).json()).count, 2);
});

Deno.test("blast radius: a compaction failing for one organization is logged with its id; the pass goes on with the others", async () => {
  const { deps, acme, shop, send } = await world();
  await send(acme, 3);
  await send(shop, 2);
  // whichever organization the pass meets first fails (a damaged compaction mark)
  let first = "";
  for await (const o of deps.kv.list<Org>({ prefix: keys.orgs() })) {
    first ||= o.value.id;
  }
  const other = first === acme.org ? shop.org : acme.org;
  await deps.kv.set(keys.compactMark(first, "production", "ev"), {
    building: null,
    garbage: 5,
    lease_until: 0,
  });
  deps.clock.advance(10 * 60_000);
  const report = await compactAll(deps);
  assert.equal(report.failed, 1);
  const parts = await listParts(deps.kv, other, "production", "ev");
  assert.equal(parts.reduce((n, p) => n + p.meta.rows, 0), other === acme.org ? 3 : 2);
  const line = deps.log.lines.find((l) => l.includes("compaction of an organization failed"));
  assert.ok(line?.includes(first), line);
});

Deno.test("blast radius: a verification failing for one organization is logged with it; the sweep verifies the others", async () => {
  const { deps, app, acme, shop } = await world({
    // acme's crawler address times out on DNS; shop's is a real Amazonbot's
    reverse: (ip) =>
      ip === "203.0.113.66"
        ? Promise.reject(new Error("DNS lookup timed out"))
        : Promise.resolve(["crawler-1.crawl.amazonbot.amazon"]),
    forward: (name) => Promise.resolve(name === "crawler-1.crawl.amazonbot.amazon" ? ["203.0.113.67"] : []),
    txt: () => Promise.resolve([]),
  });
  const crawl = (t: typeof acme, ip: string) =>
    app.request("/v1/behavior/server-events", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.serverKey}` },
      body: JSON.stringify({
        events: [{
          event_type: "$crawl",
          event_id: crypto.randomUUID(),
          host: t.domain,
          path: "/",
          user_agent:
            "Mozilla/5.0 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)",
          ip,
        }],
      }),
    });
  assert.equal((await crawl(acme, "203.0.113.66")).status, 202);
  assert.equal((await crawl(shop, "203.0.113.67")).status, 202);
  deps.clock.advance(60_000);
  assert.deepEqual(await sweepPendingVerifications(app.ctx), { verified: 1, failed: 1 });
  const line = deps.log.lines.find((l) => l.includes("pending verification failed"));
  assert.ok(line?.includes(acme.org), line);
});

Deno.test("blast radius: the newest raw record unreadable, account_overview (and every answer's freshness) still answers", async () => {
  const { deps, acme, send, read } = await world();
  await send(acme, 2);
  deps.clock.advance(1_000);
  await deps.kv.set([...keys.rawEvents(acme.org, "production"), deps.clock.now(), "newest"], unreadable());
  await deps.kv.set([...keys.rawHits(acme.org, "production"), deps.clock.now(), "newest"], unreadable());
  const res = await read(acme, "account_overview");
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
});
