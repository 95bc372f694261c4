/**
 * Issue 32, blast radius: an address whose requests keep being refused (bodies past the guard's limits) has
 * its next requests held before they reach the server, with the same answers; another address is not held,
 * and a client refused now and then never is. Over real sockets: the guard on "::", one client on ::1 and
 * one on 127.0.0.1 (two addresses).
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { DEFAULT_GUARD, guardLimits, serveGuarded } from "../../../lib/server/connection_guard.ts";
import { testDeps } from "../../helpers/deps.ts";

const LIMITS = { bodyMs: 5_000, headerMs: 5_000, idleMs: 5_000, perAddress: 200, refusalBudget: 3 };

async function world() {
  const deps = await testDeps();
  const server = serveGuarded({ hostname: "::", port: 0 }, createApp(deps).fetch, LIMITS);
  const at = (host: string) => `http://${host}:${server.addr.port}`;
  return { deps, server, attacker: at("[::1]"), other: at("127.0.0.1") };
}

/** A body the guard refuses (422) before any key is looked at: nesting past the ingest limit. */
async function refusedBody(base: string): Promise<number> {
  const res = await fetch(`${base}/v1/behavior/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "[".repeat(20_000),
  });
  await res.body?.cancel();
  return res.status;
}

async function health(base: string): Promise<number> {
  const res = await fetch(`${base}/healthz`);
  await res.body?.cancel();
  return res.status;
}

Deno.test("refusal hold: an address refused again and again waits, with the same answers; another address does not", async () => {
  const { deps, server, attacker, other } = await world();
  try {
    // at once, so none waits: the refusals are counted as they are answered
    const burst = await Promise.all(Array.from({ length: 60 }, () => refusedBody(attacker)));
    assert.deepEqual(new Set(burst), new Set([422]));
    assert.equal(server.held(), 0);
    assert.equal(await health(attacker), 200, "held, then answered as it would be");
    assert.equal(server.held(), 1);
    assert.equal(await refusedBody(attacker), 422, "a refused body held is refused the same way");
    assert.equal(server.held(), 2);
    assert.equal(await health(other), 200);
    assert.equal(server.held(), 2, "the other address was not held");
  } finally {
    await server.shutdown();
    deps.kv.close();
  }
});

Deno.test("refusal hold: a client refused up to its budget is never held", async () => {
  const { deps, server, other } = await world();
  try {
    for (let i = 0; i < LIMITS.refusalBudget; i++) assert.equal(await refusedBody(other), 422);
    assert.equal(await health(other), 200);
    assert.equal(server.held(), 0);
  } finally {
    await server.shutdown();
    deps.kv.close();
  }
});

Deno.test("refusal hold: on by default, off behind a trusted proxy (every connection is the proxy's)", () => {
  assert.equal(DEFAULT_GUARD.refusalBudget, 10);
  assert.equal(guardLimits({}, false).refusalBudget, 10);
  assert.equal(guardLimits({}, true).refusalBudget, undefined);
});
