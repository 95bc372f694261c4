/**
 * The schemas as served, through a strict JSON Schema 2020-12 validator: ajv's 2020 dialect with
 * `strict: true`, which checks each schema against the 2020-12 meta-schema and refuses unknown keywords,
 * unknown formats, union types, `required` names no property defines and ambiguous tuples. Every tool's
 * input and output schema is compiled from MCP tools/list (raw JSON-RPC over the HTTP /mcp endpoint, on the
 * 2025 and the 2026-07-28 handshakes) and from GET /v1/read; then every tool's real answer on the demo
 * (its structuredContent, and the same question over POST /v1/read/{tool}) must pass its output schema.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import {
  demoApp,
  type Obj,
  officialClient,
  questions,
  rawMcp,
  strictValidator,
  WITH_VERSION,
} from "./schema_demo.ts";

Deno.test({
  name: "schemas as served compile under strict JSON Schema 2020-12; every real answer passes its schema",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { deps, app, key, domain } = await demoApp();
    let modern: Client | undefined;
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
      modern = await officialClient(app, key, "2026-07-28");
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
      await modern?.close();
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
