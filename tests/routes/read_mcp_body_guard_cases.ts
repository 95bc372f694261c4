/**
 * The read API and MCP read their bodies through the one body guard (lib/schemas/request_body.ts,
 * readGuardedJson): nesting, string length, lone surrogates and numbers no double holds are refused with a
 * 422 naming the problem; a read call's empty body is no inputs; MCP leaves a body that is not JSON to its
 * JSON-RPC parse error. Through the app's HTTP interface.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const post = (path: string, body: string) =>
    app.request(path, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.readKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
  return { deps, post };
}

/** A tools/call message whose arguments are `args` as written (raw JSON text). */
const call = (args: string) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"behavior_pages","arguments":${args}}}`;

const HOSTILE: [string, string, RegExp][] = [
  ["nesting 10,000 deep", '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000), /nested deeper than 64 levels/],
  ["a body past 64 KB", `{"page":"/x"${" ".repeat(70_000)}}`, /larger than 65536 bytes/],
  ["a lone surrogate", '{"page":"/\\ud800"}', /page.*well-formed Unicode/],
  ["a number no double holds", '{"limit":1e400}', /limit.*beyond the range/],
];

Deno.test("read API body guard: depth, long strings, lone surrogates and 1e400 are 422s naming the problem", async () => {
  const { deps, post } = await setup();
  try {
    for (const [what, body, message] of HOSTILE) {
      const res = await post("/v1/read/behavior_pages", body);
      const err = await res.json();
      assert.equal(res.status, /64 KB/.test(what) ? 413 : 422, `${what}: ${JSON.stringify(err)}`);
      assert.equal(err.code, "VALIDATION_ERROR", what);
      assert.match(err.error, message, what);
    }
    const notJson = await post("/v1/read/behavior_pages", "{nope");
    assert.equal(notJson.status, 422);
    assert.match((await notJson.json()).error, /not JSON; send a JSON object/);
    // an empty body (or only whitespace) is a call without inputs, answered as `{}` is
    for (const empty of ["", "  \n"]) {
      const res = await post("/v1/read/account_overview", empty);
      assert.equal(res.status, 200, JSON.stringify(await res.clone().text()));
      const same = await post("/v1/read/account_overview", "{}");
      assert.deepEqual(Object.keys(await res.json()).sort(), Object.keys(await same.json()).sort());
    }
  } finally {
    deps.kv.close();
  }
});

Deno.test("MCP body guard: the same bodies inside a JSON-RPC message are 422s; not JSON is JSON-RPC's parse error", async () => {
  const { deps, post } = await setup();
  try {
    for (const [what, args, message] of HOSTILE) {
      const res = await post("/mcp", call(args));
      const text = await res.text();
      assert.equal(res.status, /64 KB/.test(what) ? 413 : 422, `${what}: ${text.slice(0, 300)}`);
      const err = JSON.parse(text);
      assert.match(err.error, message, what);
    }
    for (const body of ["{nope", ""]) {
      const res = await post("/mcp", body);
      assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(body)}: ${res.status}`);
      const answer = await res.json();
      assert.equal(answer.error?.code, -32700, `${JSON.stringify(body)}: ${JSON.stringify(answer)}`);
    }
    // a valid call still runs
    const ok = await post("/mcp", call('{"period":"last_7_days"}'));
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /"result"/);
  } finally {
    deps.kv.close();
  }
});
