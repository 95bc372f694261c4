/**
 * Issue 32, finding 5: a question that finds raw records older than compaction should have left starts a
 * compaction of that environment in the background (lib/jobs/tail_watch.ts): the answer does not wait for
 * it, and the compaction lease keeps it from running beside another run. Through the read API and MCP.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { CompactLease } from "../../lib/jobs/compact_lease.ts";
import { CHECK_EVERY_MS, STALE_MS } from "../../lib/jobs/tail_watch.ts";
import { keys } from "../../lib/store/keys.ts";
import { listParts } from "../../lib/parts/store.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

async function world() {
  const deps = await testDeps();
  const app = createApp(deps);
  app.ctx.tails.start(); // as main.ts does beside the jobs
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "acme.test", plan: "enterprise" });
  const send = async (n: number, from: number) => {
    const res = await app.request("/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: `https://${t.domain}` },
      body: JSON.stringify({
        api_key: t.publicKey,
        batch: Array.from(
          { length: n },
          (_, i) => event({ sequence_no: from + i, properties: { path: "/", url: `https://${t.domain}/` } }),
        ),
      }),
    });
    assert.equal(res.status, 204);
  };
  const read = (tool: string) =>
    app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
      body: JSON.stringify({ period: "last_7_days" }),
    });
  const raw = async () => {
    let n = 0;
    for await (const _ of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) n++;
    return n;
  };
  const parts = async () => (await listParts(deps.kv, t.org, "production", "ev")).length;
  return { deps, app, t, send, read, raw, parts };
}

Deno.test("a read over an old raw tail has it compacted in the background, under the compaction lease", async () => {
  const { deps, app, t, send, read, raw, parts } = await world();
  try {
    for (let b = 0; b < 5; b++) await send(100, b * 100);
    assert.equal(await raw(), 500);

    // a fresh tail: compaction's grace still holds it; a question starts nothing
    assert.equal((await read("behavior_overview")).status, 200);
    await app.ctx.tails.running();
    assert.equal(await parts(), 0);

    // the cron stopped (say): the tail grows old. Another run holds the lease meanwhile: the question is
    // answered all the same, and the compaction it starts does not run beside that run
    deps.clock.advance(STALE_MS + CHECK_EVERY_MS);
    const held = await CompactLease.claim(deps.kv, keys.compactLease(t.org, "production", "ev"), deps.clock);
    assert.ok(held);
    const answered = await read("behavior_overview");
    assert.equal(answered.status, 200);
    await answered.body?.cancel();
    await app.ctx.tails.running();
    assert.equal(await parts(), 0, "no second run while the lease is held");
    assert.equal(await raw(), 500);
    await held.release();

    // the lease free, the next question (past the check interval) has the tail folded into parts
    deps.clock.advance(CHECK_EVERY_MS);
    const again = await read("behavior_overview");
    assert.equal(again.status, 200);
    await app.ctx.tails.running();
    assert.ok((await parts()) > 0, "compaction ran");
    assert.equal(await raw(), 0, "the raw tail is folded away");
  } finally {
    deps.kv.close();
  }
});

Deno.test("an MCP question over an old raw tail starts the same compaction", async () => {
  const { deps, app, t, send, raw, parts } = await world();
  try {
    await send(50, 0);
    deps.clock.advance(STALE_MS + 1);
    const res = await app.request("/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${t.readKey}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "behavior_overview", arguments: { period: "last_7_days" } },
      }),
    });
    assert.equal(res.status, 200);
    await res.text();
    await app.ctx.tails.running();
    assert.ok((await parts()) > 0);
    assert.equal(await raw(), 0);
  } finally {
    deps.kv.close();
  }
});
