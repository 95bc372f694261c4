import assert from "node:assert/strict";
import { startServer } from "../helpers/server.ts";
import { adminCall, createTenant, type Tenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const ENDPOINT = "/v1/behavior/events";

/** An Error body as the spec gives it: exactly {error, code, timestamp}, the timestamp ISO 8601. */
async function assertErrorBody(res: Response, code: string) {
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["code", "error", "timestamp"]);
  assert.equal(body.code, code);
  assert.ok(typeof body.error === "string" && body.error.length > 0);
  assert.equal(new Date(body.timestamp).toISOString(), body.timestamp);
  return body;
}

/**
 * The other answers of POST /v1/behavior/events, on the running server: each a step, for a second
 * organization (its own domain) so the first one's event counts stay as the restart check expects.
 */
async function errorAndCorsSteps(tc: Deno.TestContext, url: string, adminToken: string) {
  const api = { request: (p: string, i?: RequestInit) => fetch(url + p, i) };
  const u = await createTenant(api, adminToken, { domain: "shop.test" });
  const origin = "https://shop.test";
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(url + ENDPOINT, {
      method: "POST",
      headers: { "content-type": "application/json", origin, ...headers },
      body,
    });
  const storedIds = async () => {
    const res = await fetch(`${url}/admin/v1/orgs/${u.org}/events?limit=1000`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    return ((await res.json()).events as { id: string }[]).map((e) => e.id);
  };

  await tc.step("401 for an unknown key, readable by the page (CORS headers), nothing stored", async () => {
    const res = await post(JSON.stringify({ api_key: `svc_pk_${"0".repeat(32)}`, batch: [event()] }));
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("access-control-allow-origin"), origin);
    await assertErrorBody(res, "UNAUTHORIZED");
    assert.deepEqual(await storedIds(), []);
  });

  // the web endpoint's statuses have no 413 (spec): an oversize body is its 422
  await tc.step("422 for a body over 1 MB: an Error body, nothing stored", async () => {
    const big = event({ properties: { path: "/", blob: "x".repeat(1_100_000) } });
    const res = await post(JSON.stringify({ api_key: u.publicKey, batch: [big] }));
    assert.equal(res.status, 422);
    await assertErrorBody(res, "VALIDATION_ERROR");
    assert.deepEqual(await storedIds(), []);
  });

  await tc.step(
    "422 for a streamed body with no Content-Length, answered before it is read whole",
    async () => {
      const total = 64 * 1024 * 1024;
      const piece = new TextEncoder().encode("x".repeat(65_536));
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(`{"api_key":"${u.publicKey}","batch":[{"note":"`));
        },
        pull(c) {
          if (pulled >= total) return c.close();
          pulled += piece.length;
          c.enqueue(piece);
        },
      });
      let res: Response;
      try {
        res = await post(body);
      } catch (e) {
        // the server answered 422 and closed while the client was still sending: on a loaded machine the
        // client may meet the closed connection (broken pipe) before it reads the answer. What must hold
        // then too: the body was not read whole
        const why = String((e as Error).cause ?? e);
        assert.match(why, /broken pipe|connection reset/i, String(e));
        assert.ok(pulled < total / 2, `the connection closed after ${pulled} of ${total} bytes`);
        return;
      }
      const sentWhenAnswered = pulled;
      assert.equal(res.status, 422);
      await assertErrorBody(res, "VALIDATION_ERROR");
      assert.ok(sentWhenAnswered < total / 2, `answered after ${sentWhenAnswered} of ${total} bytes`);
    },
  );

  await tc.step(
    "429 with Retry-After (whole seconds, at least 1) once a key's per-minute limit is spent",
    async () => {
      const limited = await adminCall(api, adminToken, "POST", `/orgs/${u.org}/keys`, {
        kind: "public",
        environment: "production",
        touchpoint: u.touchpoint,
        rate_per_minute: 2,
      });
      // Limits count fixed clock minutes: start well inside one so all three requests share it.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
      const admitted = [event({ sequence_no: 0 }), event({ sequence_no: 1 })];
      for (const e of admitted) {
        const ok = await post(JSON.stringify({ api_key: limited.key, batch: [e] }));
        assert.equal(ok.status, 204);
        await ok.body?.cancel();
      }
      const refused = event({ sequence_no: 2 });
      const res = await post(JSON.stringify({ api_key: limited.key, batch: [refused] }));
      assert.equal(res.status, 429);
      const retry = res.headers.get("retry-after") ?? "";
      assert.match(retry, /^\d+$/, `Retry-After ${retry}`);
      assert.ok(Number(retry) >= 1 && Number(retry) <= 60, `Retry-After ${retry}`);
      // the SDK reads Retry-After cross-origin: the page may only see it when it is exposed
      assert.equal(res.headers.get("access-control-allow-origin"), origin);
      assert.match(res.headers.get("access-control-expose-headers") ?? "", /retry-after/i);
      await assertErrorBody(res, "RATE_LIMIT_EXCEEDED");
      assert.deepEqual((await storedIds()).sort(), admitted.map((e) => e.event_id).sort());
    },
  );

  await tc.step(
    "CORS preflight: an allowed origin is echoed with the allowed methods; another is refused",
    async () => {
      const preflight = (from: string) =>
        fetch(url + ENDPOINT, {
          method: "OPTIONS",
          headers: {
            origin: from,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
          },
        });
      const ok = await preflight("https://www.shop.test");
      assert.equal(ok.status, 204);
      await ok.body?.cancel();
      assert.equal(ok.headers.get("access-control-allow-origin"), "https://www.shop.test");
      const methods = (ok.headers.get("access-control-allow-methods") ?? "").split(/,\s*/);
      assert.ok(methods.includes("POST") && methods.includes("OPTIONS"), methods.join());
      assert.match(ok.headers.get("access-control-allow-headers") ?? "", /content-type/i);
      assert.match(ok.headers.get("vary") ?? "", /origin/i);
      const no = await preflight("https://evil.test");
      assert.equal(no.status, 403);
      assert.equal(no.headers.get("access-control-allow-origin"), null);
      await assertErrorBody(no, "FORBIDDEN");
    },
  );

  await tc.step("a text/plain body (a beacon) is answered 204 and stored once, a resend too", async () => {
    const beacon = event({ sequence_no: 7 });
    const text = JSON.stringify({ api_key: u.publicKey, batch: [beacon] });
    for (let i = 0; i < 2; i++) {
      const res = await post(text, { "content-type": "text/plain;charset=UTF-8" });
      assert.equal(res.status, 204);
      assert.equal(await res.text(), "");
    }
    assert.equal((await storedIds()).filter((id) => id === beacon.event_id).length, 1);
  });
}

Deno.test("e2e events: the real server on a KV file stores a batch once, refuses bad input, keeps data across a restart", async (tc) => {
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

    await errorAndCorsSteps(tc, srv.url, srv.adminToken);
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
