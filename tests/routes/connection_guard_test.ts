/**
 * Issue 32, finding 3: the self-hosted front door closes slow-header and idle connections and caps the
 * connections of one address, over real sockets on 127.0.0.1 (short limits, bounded waits).
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { DEFAULT_GUARD, guardLimits, serveGuarded } from "../../lib/server/connection_guard.ts";
import { testDeps } from "../helpers/deps.ts";
import { rawRequest, wire } from "../helpers/raw_http.ts";

const LIMITS = { bodyMs: 1_500, headerMs: 1_500, idleMs: 1_500, perAddress: 5 };

async function world() {
  const deps = await testDeps();
  const app = createApp(deps);
  const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, app.fetch, LIMITS);
  return { deps, server, port: server.addr.port };
}

/** Reads until the server closes the socket or `maxMs` passes; says which. */
async function readUntilClosed(conn: Deno.Conn, maxMs: number): Promise<{ closed: boolean; text: string }> {
  let text = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, maxMs);
  const buf = new Uint8Array(8192);
  while (true) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  clearTimeout(timer);
  if (!timedOut) conn.close();
  return { closed: !timedOut, text };
}

Deno.test("connection guard: an ordinary request is answered, with the client's address seen by the app", async () => {
  const { deps, server, port } = await world();
  const res = await rawRequest(port, wire("GET", "/healthz", { Host: "127.0.0.1" }));
  assert.equal(res.status, 200);
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: headers that never complete get a 408 and the connection is closed", async () => {
  const { deps, server, port } = await world();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  const out = await readUntilClosed(conn, 8_000);
  assert.ok(out.closed, "the server closed the slow-header connection");
  assert.match(out.text, /^HTTP\/1\.1 408/);
  assert.match(out.text, /"error":"request headers not complete/);
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: an idle keep-alive connection is closed after its answer", async () => {
  const { deps, server, port } = await world();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const out = await readUntilClosed(conn, 8_000);
  assert.match(out.text, /^HTTP\/1\.1 200/);
  assert.ok(out.closed, "the server closed the idle connection");
  await server.shutdown();
  deps.kv.close();
});

/** A guard in front of a handler that takes `workMs` before it answers `body` (after reading the request's body). */
function slowServer(
  workMs: number,
  body: string,
  limits = { bodyMs: 10_000, headerMs: 10_000, idleMs: 1_000, perAddress: 5 },
) {
  let started = 0;
  const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, async (req) => {
    const got = await req.text().catch(() => null); // a client gone mid-body
    if (got === null) return new Response(null, { status: 400 });
    started++;
    await new Promise((r) => setTimeout(r, workMs));
    return new Response(`${got.length}:${body}`);
  }, limits);
  return { server, port: server.addr.port, started: () => started };
}

Deno.test("connection guard: a handler that takes longer than the idle timeout still gets its answer to the client", async () => {
  // idle 1 s, the handler works 3.5 s on a request that has arrived whole: that wait is the server's, not idle
  const answer = "x".repeat(200_000);
  const { server, port } = slowServer(3_500, answer);
  try {
    const upload = "r".repeat(300_000);
    const t0 = Date.now();
    const res = await rawRequest(port, wire("POST", "/import", { Host: "127.0.0.1" }, upload), 10_000);
    assert.equal(res.status, 200, `the answer came (${JSON.stringify(res.headers)})`);
    assert.ok(Date.now() - t0 >= 3_400, "the handler's work was waited for");
    assert.equal(res.body, `${upload.length}:${answer}`, "the answer is whole");
  } finally {
    await server.shutdown();
  }
});

Deno.test("connection guard: after a slow answer the kept-alive connection serves again, then is closed when idle", async () => {
  const { server, port } = slowServer(2_500, "done");
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const ask = () => conn.write(new TextEncoder().encode("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    const buf = new Uint8Array(8192);
    const answer = async () => {
      let text = "";
      while (!text.endsWith("0:done")) {
        const n = await conn.read(buf).catch(() => null);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      return text;
    };
    for (let i = 0; i < 2; i++) {
      await ask();
      assert.match(
        await answer(),
        /^HTTP\/1\.1 200 [^]*0:done$/,
        `answer ${i + 1} on the kept-alive connection`,
      );
    }
    // then the client sends nothing: the connection is idle and is closed
    const t0 = Date.now();
    const out = await readUntilClosed(conn, 6_000);
    assert.ok(out.closed, "the idle keep-alive connection was closed");
    assert.equal(out.text, "");
    assert.ok(Date.now() - t0 >= 900, "not before the idle timeout");
  } finally {
    await server.shutdown();
  }
});

Deno.test("connection guard: a client that sends nothing, or stops mid-body, is still closed as idle", async () => {
  // the header deadline is far off (10 s) and the handler reads the body with no deadline of its own: only the
  // 1 s idle deadline can close these in time
  const { server, port, started } = slowServer(0, "never");
  try {
    const silent = await Deno.connect({ hostname: "127.0.0.1", port });
    const stalled = await Deno.connect({ hostname: "127.0.0.1", port });
    // its headers are complete (the handler is reading its body) but the body stops halfway
    await stalled.write(
      new TextEncoder().encode("POST /import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nhalf"),
    );
    const t0 = Date.now();
    const [a, b] = await Promise.all([readUntilClosed(silent, 6_000), readUntilClosed(stalled, 6_000)]);
    assert.ok(a.closed, "the silent connection was closed");
    assert.ok(b.closed, "the connection whose body stalled was closed");
    assert.ok(Date.now() - t0 < 5_000, "by the idle deadline, not the 10 s header or body deadline");
    assert.equal(b.text, "", "the stalled request was never answered");
    assert.equal(started(), 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("connection guard: past the per-address cap the next connection is refused with 503", async () => {
  const { deps, server, port } = await world();
  const held: Deno.Conn[] = [];
  for (let i = 0; i < LIMITS.perAddress; i++) held.push(await Deno.connect({ hostname: "127.0.0.1", port }));
  const res = await rawRequest(port, wire("GET", "/healthz", { Host: "127.0.0.1" }), 5_000);
  assert.equal(res.status, 503);
  assert.match(res.body, /more than 5 connections from one address/);
  for (const c of held) c.close();
  // once they are gone the address is served again
  let again = 0;
  for (let i = 0; i < 20 && again !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    again = (await rawRequest(port, wire("GET", "/healthz", { Host: "127.0.0.1" }), 5_000)).status;
  }
  assert.equal(again, 200);
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: a body that trickles in past its deadline gets a 408 with the spec's Error body", async () => {
  const { deps, server, port } = await world();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(
      "POST /oauth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        'Content-Length: 500\r\n\r\n{"redirect_uris":',
    ),
  );
  // a byte every half second keeps the connection busy, but the body is never complete
  let sent = 0;
  const drip = setInterval(() => void conn.write(new TextEncoder().encode(" ")).catch(() => {}), 500);
  const out = await readUntilClosed(conn, 8_000).finally(() => clearInterval(drip));
  sent++;
  assert.ok(sent > 0);
  assert.match(out.text, /^HTTP\/1\.1 408/);
  assert.match(out.text, /request body not complete within 1\.5 s/);
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: broken chunked framing gets a 400 with the spec's Error body, not a closed socket", async () => {
  const { deps, server, port } = await world();
  const head = "POST /oauth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  for (
    const body of [
      "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", // a chunk size that is not hex
      "Transfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n", // a chunk longer than its size
    ]
  ) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode(head + body));
    const out = await readUntilClosed(conn, 8_000);
    assert.match(out.text, /^HTTP\/1\.1 400/, JSON.stringify(out.text));
    const json = JSON.parse(out.text.slice(out.text.indexOf("\r\n\r\n") + 4));
    assert.equal(json.code, "VALIDATION_ERROR");
    assert.match(json.error, /framing is malformed/);
    assert.ok(out.closed);
  }
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: a request line or headers Deno cannot parse get the Error body, not an empty 400", async () => {
  const { deps, server, port } = await world();
  for (
    const raw of [
      "GARBAGE\r\n\r\n",
      "POST /v1/behavior/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n",
    ]
  ) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode(raw));
    const out = await readUntilClosed(conn, 8_000);
    assert.match(out.text, /^HTTP\/1\.1 400/, JSON.stringify(out.text));
    assert.match(out.text, /"code":"VALIDATION_ERROR"/);
    assert.match(out.text, /framing is malformed/);
  }
  // on a kept-alive connection, a later request Deno cannot parse
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  const buf = new Uint8Array(8192);
  const firstAnswer = new TextDecoder().decode(buf.subarray(0, (await conn.read(buf)) ?? 0));
  assert.match(firstAnswer, /^HTTP\/1\.1 200/);
  await conn.write(
    new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n"),
  );
  const second = await readUntilClosed(conn, 8_000);
  assert.match(second.text, /^HTTP\/1\.1 400/, JSON.stringify(second.text));
  assert.match(second.text, /framing is malformed/);
  // an ordinary 4xx of the app is relayed as it is
  const res = await rawRequest(port, wire("GET", "/no-such-page", { Host: "127.0.0.1" }));
  assert.equal(res.status, 404);
  await server.shutdown();
  deps.kv.close();
});

Deno.test("connection guard: limits from the environment, with defaults; behind a trusted proxy no cap", () => {
  assert.deepEqual(guardLimits({}, false), DEFAULT_GUARD);
  assert.equal(guardLimits({}, true).perAddress, Infinity);
  assert.deepEqual(
    guardLimits({
      HEADER_TIMEOUT_S: "5",
      BODY_TIMEOUT_S: "20",
      IDLE_TIMEOUT_S: "15",
      MAX_CONNECTIONS_PER_ADDRESS: "10",
    }, true),
    { headerMs: 5_000, bodyMs: 20_000, idleMs: 15_000, perAddress: 10 },
  );
  assert.throws(() => guardLimits({ HEADER_TIMEOUT_S: "0" }, false), /HEADER_TIMEOUT_S/);
  assert.throws(
    () => guardLimits({ MAX_CONNECTIONS_PER_ADDRESS: "x" }, false),
    /MAX_CONNECTIONS_PER_ADDRESS/,
  );
});
