/**
 * The connection guard's relay follows each request's framing (lib/server/request_framing.ts): the rest of
 * a body the server answered early is not passed on, a body sent after `100 Continue` is not taken for the
 * next request's headers (and cut by the header deadline), and keep-alive requests are each timed.
 * Real sockets on 127.0.0.1 with short limits.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { serveGuarded } from "../../../lib/server/connection_guard.ts";
import { RequestFraming } from "../../../lib/server/request_framing.ts";
import { testDeps } from "../../helpers/deps.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Everything the server sends until it closes (or `maxMs`). */
async function readAll(conn: Deno.Conn, maxMs = 8_000, onFirst?: () => void): Promise<string> {
  let text = "";
  const timer = setTimeout(() => conn.close(), maxMs);
  const buf = new Uint8Array(16 * 1024);
  while (true) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    if (!text) onFirst?.();
    text += dec.decode(buf.subarray(0, n));
  }
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return text;
}

Deno.test("request framing: content-length, chunked split anywhere, pipelined requests, oversized headers", () => {
  const wire = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" +
    "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n3\r\nabc\r\n0\r\nT: 1\r\n\r\n" +
    "GET /c HTTP/1.1\r\nHost: a\r\n\r\n";
  const bytes = enc.encode(wire);
  for (const step of [1, 2, 7, bytes.length]) {
    const f = new RequestFraming();
    let heads = 0;
    const inBodyAfter: boolean[] = [];
    for (let i = 0; i < bytes.length; i += step) {
      heads += f.feed(bytes.subarray(i, i + step), 0).heads;
      inBodyAfter.push(f.inBody);
    }
    assert.equal(heads, 3, `step ${step}`);
    assert.equal(f.inBody, false, `step ${step}: all bodies ended`);
    assert.equal(f.headFrom, null, `step ${step}: no header block in progress`);
    if (step === 1) assert.ok(inBodyAfter.some((x) => x), "was in a body on the way");
  }
  const partial = new RequestFraming();
  partial.feed(enc.encode("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"), 5);
  assert.equal(partial.inBody, true);
  const next = partial.feed(enc.encode("defghijGET"), 9);
  assert.equal(partial.inBody, false);
  assert.equal(next.heads, 0);
  assert.equal(partial.headFrom, 9, "the next request's headers are timed from its first byte");
  const big = new RequestFraming();
  assert.equal(big.feed(enc.encode("GET / HTTP/1.1\r\nX: " + "a".repeat(70_000)), 0).tooLarge, true);
});

Deno.test("relay: the rest of a body the server refused before reading it is not passed on", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, app.fetch);
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    const size = 16 * 1024 * 1024;
    await conn.write(enc.encode(
      `POST /v1/behavior/server-events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${size}\r\n\r\n`,
    ));
    const body = new Uint8Array(size).fill(0x5b);
    const sending = (async () => {
      let at = 0;
      try {
        while (at < size) at += await conn.write(body.subarray(at, at + 65_536));
      } catch { /* the server closed: expected once it has answered */ }
      return at;
    })();
    // what was relayed before the answer depends on how fast the server refused (the machine's load); what
    // counts is that the rest is not: at most 1 MB is read after the answer, and nothing of it passed on
    let atAnswer = 0;
    const answer = await readAll(conn, 8_000, () => atAnswer = server.relayed());
    const sent = await sending;
    assert.match(answer, /^HTTP\/1\.1 (401|413) /, answer.slice(0, 200));
    assert.match(answer, /"code":"/, "the whole Error body arrived");
    const after = server.relayed() - atAnswer;
    assert.ok(
      after < 1024 * 1024,
      `relayed ${after} bytes after the answer (${server.relayed()} of ${sent} sent)`,
    );
    assert.ok(server.relayed() < size / 2, `relayed ${server.relayed()} of ${sent} bytes sent`);
  } finally {
    await server.shutdown();
    deps.kv.close();
  }
});

Deno.test("relay: a body sent after 100 Continue, slower than the header deadline, is answered; keep-alive then goes on", async () => {
  const server = serveGuarded(
    { hostname: "127.0.0.1", port: 0 },
    async (req) => new Response(`got ${(await req.text()).length}`),
    { bodyMs: 10_000, headerMs: 1_000, idleMs: 10_000, perAddress: 10 },
  );
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await conn.write(enc.encode(
      "POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 6\r\n\r\n",
    ));
    const buf = new Uint8Array(4096);
    const first = dec.decode(buf.subarray(0, (await conn.read(buf)) ?? 0));
    assert.match(first, /^HTTP\/1\.1 100 Continue/, first);
    // six bytes over ~2.4 s: past the 1 s header deadline, within the 10 s body deadline
    for (const ch of "abcdef") {
      await conn.write(enc.encode(ch));
      await new Promise((r) => setTimeout(r, 400));
    }
    let answer = "";
    while (!answer.includes("got 6")) {
      const n = await conn.read(buf);
      if (n === null) break;
      answer += dec.decode(buf.subarray(0, n));
    }
    assert.match(answer, /^HTTP\/1\.1 200 [^]*got 6$/, answer);
    // the same connection still serves, and its quiet time after the answer is not taken for slow headers
    await new Promise((r) => setTimeout(r, 1_500));
    await conn.write(
      enc.encode("POST /y HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"),
    );
    const second = await readAll(conn);
    assert.match(second, /^HTTP\/1\.1 200 [^]*got 2$/, second);
  } finally {
    await server.shutdown();
  }
});

Deno.test("relay: a socket that sends nothing holds no connection to the server; one that sends gets one", async () => {
  const server = serveGuarded(
    { hostname: "127.0.0.1", port: 0 },
    () => new Response("ok"),
    { bodyMs: 5_000, headerMs: 5_000, idleMs: 5_000, perAddress: 50 },
  );
  try {
    const idle: Deno.Conn[] = [];
    for (let i = 0; i < 10; i++) {
      idle.push(await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }));
    }
    for (let i = 0; i < 50 && server.open() < 10; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(server.open(), 10);
    assert.equal(server.relaying(), 0, "idle sockets cost the server no connection");
    await idle[0].write(enc.encode("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
    assert.match(await readAll(idle[0]), /^HTTP\/1\.1 200 [^]*ok$/);
    for (const c of idle.slice(1)) c.close();
  } finally {
    await server.shutdown();
  }
});
