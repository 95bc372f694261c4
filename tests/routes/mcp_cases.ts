import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { adminCall, createTenant } from "../helpers/tenant.ts";
import { checkAnswer } from "../../lib/answers/check.ts";
import { TOOLS } from "../../tools/registry.ts";
import { PROMPTS } from "../../toolkit/prompts.ts";

type AppLike = ReturnType<typeof createApp>;

/** What these tests use of either client (the v2 and the v1 SDK clients share it). */
interface AnyClient {
  listTools(): Promise<{
    tools: {
      name: string;
      annotations?: { readOnlyHint?: boolean };
      inputSchema: { type: string };
      outputSchema?: unknown;
    }[];
  }>;
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<
    { isError?: boolean; content: unknown; structuredContent?: unknown }
  >;
  close(): Promise<void>;
}

async function setup(config: Record<string, unknown> = {}) {
  const deps = await testDeps();
  deps.config = { ...deps.config, ...config } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  return { deps, app, t, close: () => deps.kv.close() };
}

const fetchVia = (app: AppLike) => (url: string | URL | Request, init?: RequestInit) =>
  Promise.resolve(app.fetch(new Request(url, init)));

async function modernClient(app: AppLike, key: string, path = "/mcp") {
  const client = new Client({ name: "test-modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const transport = new StreamableHTTPClientTransport(new URL(`http://read.test${path}`), {
    fetch: fetchVia(app),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
  return client;
}

async function legacyClient(app: AppLike, key: string, path = "/mcp") {
  const client = new V1Client({ name: "test-legacy", version: "1.0.0" });
  const transport = new V1Transport(new URL(`http://read.test${path}`), {
    fetch: fetchVia(app),
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  assert.match(transport.protocolVersion ?? "", /^2025-/);
  return client;
}

async function httpAnswer(app: AppLike, key: string, tool: string, input: unknown) {
  const res = await app.request(`/v1/read/${tool}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  assert.equal(res.status, 200, tool);
  return await res.json();
}

/** Inputs each tool answers on an empty site. */
const INPUTS: Record<string, Record<string, unknown>> = {
  behavior_event_properties: { event: "$pageview" },
  behavior_funnel: { steps: [{ page: "/" }, { event: "sign_up" }] },
  behavior_paths: { page: "/" },
};

for (const era of ["2026-07-28", "2025"] as const) {
  Deno.test(`mcp (${era}): lists every tool read-only, calls each, and the structured answer equals the HTTP one`, async () => {
    const s = await setup();
    const client: AnyClient = era === "2026-07-28"
      ? await modernClient(s.app, s.t.readKey)
      : await legacyClient(s.app, s.t.readKey) as unknown as AnyClient;
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOLS.map((t) => t.name));
    for (const t of tools) {
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.equal(t.inputSchema.type, "object");
      assert.ok(t.outputSchema, `${t.name} has an output schema`);
    }
    for (const t of TOOLS) {
      const input = INPUTS[t.name] ?? {};
      const result = await client.callTool({ name: t.name, arguments: input });
      assert.ok(!result.isError, `${t.name}: ${JSON.stringify(result.content)}`);
      const http = await httpAnswer(s.app, s.t.readKey, t.name, input);
      // Counters move between calls; compare what the question answers.
      const strip = (a: Record<string, unknown>) => ({ ...a, plan: undefined, notices: undefined });
      assert.deepEqual(strip(result.structuredContent as Record<string, unknown>), strip(http), t.name);
      assert.deepEqual(checkAnswer(result.structuredContent), [], t.name);
      const text = (result.content as { type: string; text: string }[])[0];
      assert.equal(text.type, "text");
      assert.match(text.text, new RegExp(`^${t.name}\\nScope: `));
    }
    await client.close();
    s.close();
  });

  Deno.test(`mcp (${era}): invalid input and an exhausted allowance come back as tool errors naming what to do`, async () => {
    const s = await setup({ plans: { professional: { allowances: { assistant_requests: 1 } } } });
    const client: AnyClient = era === "2026-07-28"
      ? await modernClient(s.app, s.t.readKey)
      : await legacyClient(s.app, s.t.readKey) as unknown as AnyClient;
    const bad = await client.callTool({ name: "account_overview", arguments: { colour: "red" } });
    assert.equal(bad.isError, true);
    assert.match((bad.content as { text: string }[])[0].text, /VALIDATION_ERROR: .*colour/);
    assert.ok(!(await client.callTool({ name: "account_overview", arguments: {} })).isError);
    const used = await client.callTool({ name: "account_overview", arguments: {} });
    assert.equal(used.isError, true);
    assert.match(
      (used.content as { text: string }[])[0].text,
      /ALLOWANCE_EXHAUSTED: .*resets on 2026-12-01.*raise/,
    );
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }));
    await client.close();
    s.close();
  });
}

Deno.test("mcp: ?tools= narrows the tool list to the named tools (any case); a name that is no tool is a 422 naming it", async () => {
  const s = await setup();
  const client = await modernClient(s.app, s.t.readKey, "/mcp?tools=account_overview,BEHAVIOR_OVERVIEW");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["account_overview", "behavior_overview"]);
  await client.close();
  for (
    const [query, said] of [["account_overview,behavior_overveiw", /no tool named "behavior_overveiw"/], [
      ",",
      /name at least one tool/,
    ]] as const
  ) {
    const res = await s.app.request(`/mcp?tools=${query}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${s.t.readKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 422, query);
    const body = await res.json();
    assert.match(body.error, said);
    assert.match(body.error, /the tools are account_overview, behavior_overview|name at least one/);
  }
  s.close();
});

Deno.test("mcp: offers the ready-made prompts", async () => {
  const s = await setup();
  const client = await modernClient(s.app, s.t.readKey);
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), PROMPTS.map((p) => p.name));
  const got = await client.getPrompt({ name: "weekly_report", arguments: { touchpoint: "Acme site" } });
  assert.match(
    (got.messages[0].content as { text: string }).text,
    /behavior_overview.*Acme site|Acme site.*behavior_overview/s,
  );
  await client.close();
  s.close();
});

Deno.test("mcp: 401 with WWW-Authenticate without a valid read key; 403 for an inactive plan", async () => {
  const s = await setup();
  const init = (auth?: string) => ({
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(auth ? { authorization: auth } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  const none = await s.app.request("/mcp", init());
  assert.equal(none.status, 401);
  // RFC 9728 §5.1: the challenge names the resource metadata, so an MCP client can sign in by itself.
  assert.equal(
    none.headers.get("www-authenticate"),
    'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", scope="read"',
  );
  const wrong = await s.app.request("/mcp", init("Bearer svc_rk_prod_" + "y".repeat(30)));
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate") ?? "", /invalid_token/);
  await assert.rejects(modernClient(s.app, s.t.serverKey));
  await adminCall(s.app, TEST_ADMIN_TOKEN, "PATCH", `/orgs/${s.t.org}`, { active: false });
  assert.equal((await s.app.request("/mcp", init(`Bearer ${s.t.readKey}`))).status, 403);
  s.close();
});

Deno.test("mcp: both clients over a real HTTP listener (port 0)", async () => {
  const s = await setup();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req) => s.app.fetch(req));
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  const headers = { authorization: `Bearer ${s.t.readKey}` };
  const modern = new Client({ name: "real", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await modern.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  const legacy = new V1Client({ name: "real-v1", version: "1.0.0" });
  await legacy.connect(new V1Transport(url, { requestInit: { headers } }));
  for (const client of [modern, legacy as unknown as AnyClient]) {
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOLS.length);
    const r = await client.callTool({ name: "account_overview", arguments: {} });
    assert.equal((r.structuredContent as { organization: { id: string } }).organization.id, s.t.org);
  }
  await modern.close();
  await legacy.close();
  await server.shutdown();
  s.close();
});
