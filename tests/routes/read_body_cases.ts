/**
 * Read API and MCP bodies are capped at 64 KB before they are buffered, and a read call's key, tool name
 * and per-minute rate are checked before its body is read at all.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

const TOTAL = 64 * 1024 * 1024;

/** A 64 MB JSON-ish body produced on demand, counting what the server pulled. */
function bigBody() {
  const piece = new TextEncoder().encode(" ".repeat(65_536));
  const state = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"period":"last_7_days"'));
    },
    pull(c) {
      if (state.pulled >= TOTAL) return c.close();
      state.pulled += piece.length;
      c.enqueue(piece);
    },
  });
  return { stream, state };
}

async function setup(ratePerMinute = 1_000) {
  const deps = await testDeps();
  deps.config = { ...deps.config, readKeyRatePerMinute: ratePerMinute };
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const call = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    app.fetch(
      new Request(`http://svc${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${t.readKey}`,
          ...headers,
        },
        body,
        // @ts-ignore: a streamed request body needs it (not yet in every lib's RequestInit)
        duplex: "half",
      }),
    );
  return { deps, app, t, call };
}

Deno.test("read body: a streamed 64 MB body is a 413 after at most 64 KB read; a declared one before any", async () => {
  const { call } = await setup();
  const big = bigBody();
  const res = await call("/v1/read/behavior_overview", big.stream);
  assert.equal(res.status, 413);
  assert.equal((await res.json()).code, "VALIDATION_ERROR");
  assert.ok(big.state.pulled <= 4 * 65_536, `pulled ${big.state.pulled} bytes`);

  const declared = await call("/v1/read/behavior_overview", "{}", { "content-length": String(TOTAL) });
  assert.equal(declared.status, 413);

  const mcp = bigBody();
  const viaMcp = await call("/mcp", mcp.stream);
  assert.equal(viaMcp.status, 413);
  assert.ok(mcp.state.pulled <= 4 * 65_536, `mcp pulled ${mcp.state.pulled} bytes`);

  // just under the limit is an ordinary call
  const padded = `{"period":"last_7_days"${" ".repeat(60_000)}}`;
  assert.equal((await call("/v1/read/behavior_overview", padded)).status, 200);
});

Deno.test("read body: no key, an unknown tool or a spent rate answer before the body is read", async () => {
  const { call } = await setup(2);
  const cases: [string, Record<string, string>, number][] = [
    ["/v1/read/behavior_overview", { authorization: "Bearer svc_rk_prod_" + "0".repeat(32) }, 401],
    ["/v1/read/no_such_tool", {}, 404],
  ];
  for (const [path, headers, status] of cases) {
    const big = bigBody();
    const res = await call(path, big.stream, headers);
    assert.equal(res.status, status, `${path}: ${await res.text()}`);
    assert.ok(big.state.pulled <= 65_536, `${path}: pulled ${big.state.pulled} bytes`);
  }
  // the rate token is taken once a call: two calls pass, the third is refused before its body
  assert.equal((await call("/v1/read/behavior_overview", "{}")).status, 200);
  assert.equal((await call("/v1/read/behavior_overview", "{}")).status, 200);
  const big = bigBody();
  const third = await call("/v1/read/behavior_overview", big.stream);
  assert.equal(third.status, 429);
  assert.ok(Number(third.headers.get("retry-after")) >= 1);
  assert.ok(big.state.pulled <= 65_536, `pulled ${big.state.pulled} bytes`);
});

Deno.test("read body: the one body guard refuses a lone surrogate and a number no double holds, naming where", async () => {
  const { createApp } = await import("../../app.ts");
  const { TEST_ADMIN_TOKEN, testDeps } = await import("../helpers/deps.ts");
  const { createTenant } = await import("../helpers/tenant.ts");
  const deps = await testDeps();
  try {
    const app = createApp(deps);
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    const ask = (body: string) =>
      app.request("/v1/read/behavior_pages", {
        method: "POST",
        headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
        body,
      });
    for (const [body, where] of [['{"page":"/\\ud800"}', /page/], ['{"limit":1e400}', /limit/]] as const) {
      const res = await ask(body);
      const err = await res.json();
      assert.equal(res.status, 422, body);
      assert.match(err.error, where, body);
    }
    const notJson = await ask("{nope");
    assert.equal(notJson.status, 422);
    assert.match((await notJson.json()).error, /not JSON; send a JSON object/);
  } finally {
    deps.kv.close();
  }
});
