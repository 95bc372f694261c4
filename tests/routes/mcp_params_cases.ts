/**
 * Requests whose params have the wrong shape are the client's mistake: -32602 Invalid params naming the
 * field, never -32603 "Internal error" with a schema dump (the SDK's answer under the 2025 revisions), which
 * tells a client to retry what cannot succeed. Well-formed requests still reach the transport.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

/** The JSON-RPC answer, whether the transport sent it as JSON or as one server-sent event. */
async function rpc(res: Response) {
  const text = await res.text();
  const data = text.startsWith("{") ? text : text.match(/^data: (.*)$/m)?.[1] ?? "";
  return JSON.parse(data);
}

Deno.test("mcp: a malformed resources/read, prompts/get or tools/call is -32602 naming the field", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const call = (version: string, body: unknown) =>
    app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.readKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
      },
      body: JSON.stringify(body),
    });
  try {
    const cases: [unknown, RegExp][] = [
      [{ method: "resources/read", params: { uri: 7 } }, /params\.uri must be a resource's URI/],
      [{ method: "resources/read", params: {} }, /params\.uri must be/],
      [{ method: "resources/read" }, /resources\/read needs params/],
      [
        { method: "prompts/get", params: { name: "what_changed", arguments: { period: 5 } } },
        /arguments\.period must be a string/,
      ],
      [
        { method: "prompts/get", params: { name: "what_changed", arguments: "x" } },
        /arguments must be an object/,
      ],
      [{ method: "prompts/get", params: {} }, /params\.name must be a prompt's name/],
      [
        { method: "prompts/get", params: { name: "what_changed", arguments: { period: "yesterdayish" } } },
        /arguments\.period: use /,
      ],
      [
        {
          method: "prompts/get",
          params: { name: "weekly_report", arguments: { touchpoint: "nosuch.example" } },
        },
        /arguments\.touchpoint: no website or app "nosuch\.example"; choose one of "/,
      ],
      [{ method: "tools/call", params: { name: 5 } }, /params\.name must be a tool's name/],
      [
        { method: "tools/call", params: { name: "behavior_overview", arguments: [] } },
        /arguments must be an object/,
      ],
    ];
    for (const version of ["2025-06-18", "2025-03-26"]) {
      for (const [body, said] of cases) {
        const res = await call(version, { jsonrpc: "2.0", id: 9, ...(body as object) });
        assert.equal(res.status, 200);
        const answer = await rpc(res);
        const what = `${version} ${JSON.stringify(body)}: ${JSON.stringify(answer)}`;
        assert.equal(answer.id, 9, what);
        assert.equal(answer.error?.code, -32602, what);
        assert.match(answer.error.message, said, what);
        assert.doesNotMatch(answer.error.message, /invalid_type|expected/, what);
      }
    }
    // well-formed requests still get their answers from the transport
    const prompt = await rpc(
      await call("2025-06-18", {
        jsonrpc: "2.0",
        id: 1,
        method: "prompts/get",
        params: { name: "what_changed", arguments: { period: "last_7_days" } },
      }),
    );
    assert.match(prompt.result.messages[0].content.text, /last_7_days/);
    // a website named by its domain, any case, is the organization's own: the prompt is given
    const named = await rpc(
      await call("2025-06-18", {
        jsonrpc: "2.0",
        id: 4,
        method: "prompts/get",
        params: { name: "weekly_report", arguments: { touchpoint: t.domain.toUpperCase() } },
      }),
    );
    assert.ok(named.result?.messages?.length, JSON.stringify(named));
    // the resources capability answers templates/list too: none (it was -32601 Method not found)
    const templates = await rpc(
      await call("2025-06-18", { jsonrpc: "2.0", id: 3, method: "resources/templates/list", params: {} }),
    );
    assert.deepEqual(templates.result, { resourceTemplates: [] }, JSON.stringify(templates));
    const unknown = await rpc(
      await call("2025-06-18", {
        jsonrpc: "2.0",
        id: 2,
        method: "resources/read",
        params: { uri: "ui://nope" },
      }),
    );
    assert.equal(unknown.error.code, -32602);
    assert.match(unknown.error.message, /not found/);
    // a method named like an object's own property is not a check
    const odd = await rpc(
      await call("2025-06-18", { jsonrpc: "2.0", id: 3, method: "constructor", params: 1 }),
    );
    assert.notEqual(odd.error?.code, -32602);
  } finally {
    deps.kv.close();
  }
});
