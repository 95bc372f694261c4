/**
 * Issue 32, blast radius: past its cap of requests arriving at once, an address's next request waits unread
 * until one of its requests has arrived whole, while another address's requests go on. Over real sockets:
 * the guard on "::", one client on ::1 and one on 127.0.0.1 (two addresses).
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { DEFAULT_GUARD, guardLimits, serveGuarded } from "../../../lib/server/connection_guard.ts";
import { testDeps } from "../../helpers/deps.ts";

const LIMITS = { bodyMs: 20_000, headerMs: 20_000, idleMs: 20_000, perAddress: 50, arriving: 2 };

async function until(done: () => boolean, what: string) {
  for (let i = 0; i < 2_000 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(done(), what);
}

async function health(base: string): Promise<number> {
  const res = await fetch(`${base}/healthz`);
  await res.body?.cancel();
  return res.status;
}

Deno.test("arriving cap: an address's third request at once waits for one of its two slow bodies; another address does not", async () => {
  const deps = await testDeps();
  const server = serveGuarded({ hostname: "::", port: 0 }, createApp(deps).fetch, LIMITS);
  const port = server.addr.port;
  const enc = new TextEncoder();
  const slow: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const c = await Deno.connect({ hostname: "::1", port });
      await c.write(enc.encode(
        "POST /v1/behavior/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          'Content-Length: 6\r\nConnection: close\r\n\r\n{"a"',
      ));
      slow.push(c);
    }
    await until(() => server.relaying() === 2, "both slow bodies reached the server");
    const third = health(`http://[::1]:${port}`);
    await until(() => server.queued() === 1, "the third request of ::1 waits");
    assert.equal(await health(`http://127.0.0.1:${port}`), 200);
    assert.equal(server.queued(), 1, "the other address's request did not wait");
    // one slow body arrives whole: its place passes to the waiting request
    await slow[0].write(enc.encode(":1}"));
    assert.equal(await third, 200);
  } finally {
    for (const c of slow) c.close();
    await server.shutdown();
    deps.kv.close();
  }
});

Deno.test("arriving cap: 16 by default, off behind a trusted proxy", () => {
  assert.equal(DEFAULT_GUARD.arriving, 16);
  assert.equal(guardLimits({}, false).arriving, 16);
  assert.equal(guardLimits({}, true).arriving, undefined);
});
