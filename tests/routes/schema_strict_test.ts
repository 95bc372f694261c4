/**
 * The schemas as served, through a strict JSON Schema 2020-12 validator: ajv's 2020 dialect with
 * `strict: true`, which checks each schema against the 2020-12 meta-schema and refuses unknown keywords,
 * unknown formats, union types, `required` names no property defines and ambiguous tuples. Every tool's
 * input and output schema is compiled from MCP tools/list (raw JSON-RPC over the HTTP /mcp endpoint, on the
 * 2025 and the 2026-07-28 handshakes) and from GET /v1/read; then every tool's real answer on the demo
 * (its structuredContent, and the same question over POST /v1/read/{tool}) must pass its output schema.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createApp } from "../../app.ts";
import { ensureDemoTenant } from "../../lib/demo/tenant.ts";
import { generateSite } from "../../lib/demo/site.ts";
import { generateDueReports } from "../../tools/reports_generate.ts";
import { testDeps } from "../helpers/deps.ts";

type Obj = Record<string, unknown>;
type AppLike = ReturnType<typeof createApp>;

/** A strict 2020-12 validator that also fails on anything ajv would only log. */
export function strictValidator() {
  const logged: string[] = [];
  const note = (...a: unknown[]) => logged.push(a.map(String).join(" "));
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    logger: { log: () => {}, warn: note, error: note },
  });
  return {
    logged,
    compile(schema: unknown, where: string) {
      try {
        return ajv.compile(schema as Obj);
      } catch (e) {
        throw new Error(`${where}: ${(e as Error).message}`);
      }
    },
    errors: (v: { errors?: unknown }) => JSON.stringify(v.errors).slice(0, 600),
  };
}

export async function demoApp() {
  const deps = await testDeps();
  deps.config = { ...deps.config, readKeyRatePerMinute: 100_000 } as typeof deps.config;
  deps.clock.set(Date.parse("2026-11-20T12:00:00Z"));
  const app = createApp(deps);
  const { tenant } = await ensureDemoTenant(deps);
  await generateSite(deps, {
    org: tenant.org,
    touchpoint: tenant.touchpoint,
    host: tenant.domain,
    events: 3_000,
    days: 30,
    seed: 7,
  });
  await generateDueReports(app.ctx); // as the dev start does, so report_get has a report to answer with
  return { deps, app, key: tenant.readKey, domain: tenant.domain };
}

/** JSON-RPC over the real /mcp endpoint on the 2025 handshake, as bytes arrive (JSON or one SSE event). */
export function rawMcp(app: AppLike, key: string, version = "2025-11-25") {
  let session: string | null = null;
  let id = 0;
  return async (method: string, params: Obj = {}): Promise<Obj> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
    };
    if (session) headers["mcp-session-id"] = session;
    const res = await app.request("/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    session ??= res.headers.get("mcp-session-id");
    const text = await res.text();
    assert.equal(res.status, 200, `${method}: ${res.status} ${text.slice(0, 300)}`);
    const json = res.headers.get("content-type")?.includes("text/event-stream")
      ? text.split("\n").find((l) => l.startsWith("data: "))!.slice(6)
      : text;
    const msg = JSON.parse(json);
    assert.ok(msg.result, `${method}: ${json.slice(0, 300)}`);
    if (method === "initialize") {
      await app.request("/mcp", {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      });
    }
    return msg.result;
  };
}

/** A question for every tool on the demo, some tools twice to reach the branches a split or a page opens. */
export function questions(domain: string): [string, Obj][] {
  const tp = { touchpoint: domain, period: "last_28_days" };
  return [
    ["account_overview", {}],
    ["behavior_overview", { touchpoint: domain, period: "last_7_days" }],
    ["behavior_overview", { ...tp, page: "/pricing" }],
    ["behavior_trends", tp],
    ["behavior_trends", { ...tp, interval: "week", split_by: "device" }],
    ["behavior_funnel", { ...tp, steps: [{ page: "/" }, { page: "/pricing" }, { page: "/signup" }] }],
    ["behavior_funnel", { ...tp, steps: [{ page: "/" }, { page: "/pricing" }], split_by: "channel" }],
    ["behavior_explain_change", { touchpoint: domain, period: "last_7_days" }],
    ["behavior_pages", tp],
    ["behavior_events", tp],
    ["behavior_event_properties", { ...tp, event: "$pageview" }],
    ["behavior_paths", { ...tp, page: "/pricing" }],
    ["behavior_sources", tp],
    ["behavior_retention", tp],
    ["behavior_sessions", tp],
    ["behavior_saved", {}],
    ["behavior_features", tp],
    ["behavior_performance", tp],
    ["behavior_performance", { ...tp, by: "page" }],
    ["behavior_crawl_coverage", tp],
    ["behavior_crawler_access", tp],
    ["feedback_summary", { period: "last_90_days" }],
    ["feedback_themes", { period: "last_90_days" }],
    ["feedback_reviews", { period: "last_90_days" }],
    ["reports_list", {}],
    ["report_get", {}], // the id is filled in from reports_list's answer
  ];
}

const WITH_VERSION = (v: string) => ({
  protocolVersion: v,
  capabilities: {},
  clientInfo: { name: "schema-check", version: "1.0.0" },
});

Deno.test({
  name: "schemas as served compile under strict JSON Schema 2020-12; every real answer passes its schema",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { deps, app, key, domain } = await demoApp();
    const modern = new Client({ name: "schema-check", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    try {
      const v = strictValidator();
      // MCP on the 2025 handshake, as served
      const mcp = rawMcp(app, key);
      await mcp("initialize", WITH_VERSION("2025-11-25"));
      const tools = (await mcp("tools/list")).tools as Obj[];
      assert.ok(tools.length >= 20, `${tools.length} tools listed`);
      const output = new Map<string, ReturnType<typeof v.compile>>();
      for (const t of tools) {
        v.compile(t.inputSchema, `${t.name} inputSchema`);
        assert.ok(t.outputSchema, `${t.name} declares an output schema`);
        output.set(String(t.name), v.compile(t.outputSchema, `${t.name} outputSchema`));
      }
      // MCP on 2026-07-28: the same schemas
      await modern.connect(
        new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
          fetch: (u: string | URL | Request, init?: RequestInit) =>
            Promise.resolve(app.fetch(new Request(u, init))),
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      const modernTools = (await modern.listTools()).tools as Obj[];
      assert.deepEqual(modernTools.map((t) => t.name), tools.map((t) => t.name));
      for (const t of modernTools) {
        v.compile(t.inputSchema, `${t.name} inputSchema (2026-07-28)`);
        v.compile(t.outputSchema, `${t.name} outputSchema (2026-07-28)`);
      }
      // the HTTP tool API's list
      const listed = await app.request("/v1/read", { headers: { authorization: `Bearer ${key}` } });
      assert.equal(listed.status, 200);
      const readTools = (await listed.json()).tools as Obj[];
      assert.deepEqual(readTools.map((t) => t.name).sort(), tools.map((t) => t.name).sort());
      const readOutput = new Map<string, ReturnType<typeof v.compile>>();
      for (const t of readTools) {
        v.compile(t.input_schema, `GET /v1/read ${t.name} input_schema`);
        readOutput.set(String(t.name), v.compile(t.output_schema, `GET /v1/read ${t.name} output_schema`));
      }
      assert.deepEqual(v.logged, [], "nothing the strict validator only logged");

      // every tool's real answer against its published output schema
      const asked = new Set<string>();
      let reportId: string | undefined;
      for (const [tool, q] of questions(domain)) {
        const args = tool === "report_get" ? { id: reportId } : q;
        const r = await mcp("tools/call", { name: tool, arguments: args });
        assert.ok(!r.isError, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.content).slice(0, 300)}`);
        const sc = r.structuredContent as Obj;
        const check = output.get(tool)!;
        assert.ok(check(sc), `${tool} ${JSON.stringify(args)} structuredContent: ${v.errors(check)}`);
        const http = await app.request(`/v1/read/${tool}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(args),
        });
        assert.equal(http.status, 200, `POST /v1/read/${tool}`);
        const body = await http.json();
        const readCheck = readOutput.get(tool)!;
        assert.ok(readCheck(body), `POST /v1/read/${tool} ${JSON.stringify(args)}: ${v.errors(readCheck)}`);
        if (tool === "reports_list") {
          reportId = ((sc.reports as Obj[])[0]?.id) as string | undefined;
          assert.ok(reportId, "the demo has a report");
        }
        asked.add(tool);
      }
      assert.deepEqual([...asked].sort(), tools.map((t) => String(t.name)).sort(), "every tool asked");
    } finally {
      await modern.close();
      deps.kv.close();
    }
  },
});

Deno.test("strict validator: refuses what it should (so the test above can fail)", () => {
  const v = strictValidator();
  const refused = (schema: Obj) => assert.throws(() => v.compile(schema, "probe"));
  refused({ type: "object", properties: { a: { type: ["string", "integer"] } } }); // a union type
  refused({ type: "object", properties: { a: { type: "string", format: "date-time" } } }); // unknown format
  refused({ type: "object", required: ["b"], properties: { a: { type: "string" } } }); // required, undefined
  refused({ type: "object", properties: { a: { type: "strin" } } }); // not the meta-schema
  v.compile({ type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } }, "ok");
});
