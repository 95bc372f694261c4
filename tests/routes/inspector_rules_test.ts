/**
 * What the MCP Inspector warns about in a server's tools, checked on our tools/list:
 * - its schema portability lint (`core/json/schemaLint.ts` in @modelcontextprotocol/inspector 2.12.0, run by
 *   its CLI on every tools/list and shown in its web client): a `type` array, a schema that constrains
 *   nothing (`{}`), a bare boolean where a schema object is expected, a `$ref` outside the document. The
 *   rules are applied here in our own words, and the real CLI is run too when `npx` is on the machine;
 * - its first version's output-schema cache (`client/src/utils/schemaUtils.ts` up to v1): ajv's draft-07
 *   class with default options compiles each outputSchema and warns on what fails or is logged;
 * - its malformed-entry warning (`core/mcp/listSalvage.ts`): an entry the SDK's tool shape for the
 *   negotiated era refuses, and its SEP-2243 exclusions (`core/json/xMcpHeader.ts`): the official client
 *   must list every tool on both handshakes;
 * - its output advisory (`core/mcp/toolOutputValidation.ts`): each answer's structuredContent against the
 *   outputSchema with the SDK's own validator.
 */
import assert from "node:assert/strict";
import Ajv from "ajv/dist/ajv.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import type { Client } from "@modelcontextprotocol/client";
import { portableSchema } from "../../lib/answers/portable_schema.ts";
import { demoApp, type Obj, officialClient, questions, rawMcp, WITH_VERSION } from "./schema_demo.ts";

const BOOLEAN_VALUED = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
]);
const ONE = [
  "items",
  "contains",
  "not",
  "propertyNames",
  "if",
  "then",
  "else",
  ...BOOLEAN_VALUED,
  "contentSchema",
];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const NAMED = ["properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"];
/** Assertions, applicators and references: a schema with none of them accepts any value. */
const CONSTRAINING = new Set([
  ...["type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  ...["maxLength", "minLength", "pattern", "format", "contentMediaType", "contentEncoding", "contentSchema"],
  ...["maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"],
  ...["required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains"],
  ...["additionalItems", "unevaluatedItems", "properties", "patternProperties", "additionalProperties"],
  ...["unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies"],
  ...["$ref", "$dynamicRef", "$recursiveRef"],
]);

/** The Inspector's portability findings for one schema, as "path: rule" lines. */
export function lintFindings(schema: unknown, at = "#"): string[] {
  const found: string[] = [];
  const visit = (node: unknown, path: string, keyword?: string) => {
    if (typeof node === "boolean") {
      if (!keyword || !BOOLEAN_VALUED.has(keyword)) found.push(`${path}: boolean schema ${node}`);
      return;
    }
    if (!node || typeof node !== "object" || Array.isArray(node)) return;
    const n = node as Obj;
    if (Array.isArray(n.type)) found.push(`${path}: type union ${JSON.stringify(n.type)}`);
    if (typeof n.$ref === "string" && n.$ref && !n.$ref.startsWith("#")) found.push(`${path}: remote $ref`);
    const keys = Object.keys(n);
    const constrains = keys.some((k) => CONSTRAINING.has(k)) || ("if" in n && ("then" in n || "else" in n));
    if (!constrains && keyword !== "not") found.push(`${path}: untyped schema (accepts anything)`);
    for (const k of NAMED) {
      if (n[k] && typeof n[k] === "object" && !Array.isArray(n[k])) {
        for (const [name, s] of Object.entries(n[k] as Obj)) visit(s, `${path}/${k}/${name}`, k);
      }
    }
    for (const k of MANY) {
      if (Array.isArray(n[k])) (n[k] as unknown[]).forEach((s, i) => visit(s, `${path}/${k}/${i}`, k));
    }
    for (const k of ONE) {
      if (!(k in n)) continue;
      if (k === "items" && Array.isArray(n[k])) {
        (n[k] as unknown[]).forEach((s, i) => visit(s, `${path}/items/${i}`, k));
      } else visit(n[k], `${path}/${k}`, k);
    }
  };
  visit(schema, at);
  return found;
}

Deno.test("inspector lint rules: each finds what the Inspector warns about (so the tests below can fail)", () => {
  assert.deepEqual(
    lintFindings({
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: {},
        c: true,
        d: { $ref: "https://example.com/s.json" },
        e: { description: "anything", not: {} },
      },
      additionalProperties: {},
    }),
    [
      '#/properties/a: type union ["string","null"]',
      "#/properties/b: untyped schema (accepts anything)",
      "#/properties/c: boolean schema true",
      "#/properties/d: remote $ref",
      "#/additionalProperties: untyped schema (accepts anything)",
    ],
  );
  assert.deepEqual(lintFindings({ type: "object", additionalProperties: true, properties: {} }), []);
});

Deno.test("portableSchema: a schema that constrains nothing is written as what it means", () => {
  const out = portableSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      any: { description: "a cohort's definition" },
      map: { type: "object", additionalProperties: {} },
      properties: { type: "object", properties: {} }, // a property named like the keyword stays a property
    },
  });
  assert.deepEqual(out, {
    type: "object",
    properties: {
      any: {
        description: "a cohort's definition",
        anyOf: ["object", "array", "string", "number", "boolean", "null"].map((type) => ({ type })),
      },
      map: { type: "object", additionalProperties: true },
      properties: { type: "object", properties: {} },
    },
  });
  assert.deepEqual(lintFindings(out), []);
});

const INSPECTOR = "MCP Inspector: no portability finding, no malformed or excluded tool, no output advisory";
const CLI = "MCP Inspector CLI 2.12.0 --strict on tools/list over HTTP: no schema portability finding";
const withCli = hasNpx();
/**
 * The demo both tests below read (they only read it: one generated site for both); the last of them to finish
 * closes its KV (when a filter ran only one, the worker's end does).
 */
const readers = new Set(withCli ? [INSPECTOR, CLI] : [INSPECTOR]);
let demo: ReturnType<typeof demoApp> | undefined;
const sharedDemo = () => demo ??= demoApp();
async function doneReading(name: string) {
  readers.delete(name);
  if (readers.size) return;
  const d = await demo?.catch(() => undefined);
  demo = undefined;
  d?.deps.kv.close();
}

Deno.test({
  name: INSPECTOR,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { app, key, domain } = await sharedDemo();
    const clients: Client[] = [];
    try {
      const mcp = rawMcp(app, key);
      await mcp("initialize", WITH_VERSION("2025-11-25"));
      const tools = (await mcp("tools/list")).tools as Obj[];
      const names = tools.map((t) => String(t.name));

      // the schema lint, on what is served
      const findings = tools.flatMap((t) => [
        ...lintFindings(t.inputSchema, `${t.name} inputSchema`),
        ...lintFindings(t.outputSchema, `${t.name} outputSchema`),
      ]);
      assert.deepEqual(findings, []);

      // the first Inspector's output-schema cache: draft-07 ajv, default options
      const logged: string[] = [];
      const note = (...a: unknown[]) => logged.push(a.map(String).join(" "));
      const Draft7 = Ajv as unknown as typeof Ajv.default;
      const draft7 = new Draft7({ logger: { log: () => {}, warn: note, error: note } });
      for (const t of tools) {
        try {
          draft7.compile(t.outputSchema as Obj);
        } catch (e) {
          logged.push(`${t.name}: ${(e as Error).message}`);
        }
      }
      assert.deepEqual(logged, [], "ajv's draft-07 class compiles every output schema without a word");

      // every entry valid for its era, none excluded: the official client keeps them all, on both handshakes
      for (const pin of ["2025-11-25", "2026-07-28"]) {
        const client = await officialClient(app, key, pin);
        clients.push(client);
        const listed = await client.listTools();
        assert.deepEqual(listed.tools.map((t) => t.name), names, `every tool listed on ${pin}`);
      }

      // the output advisory: each real answer against its outputSchema, with the SDK's validator
      const sdk = new AjvJsonSchemaValidator();
      const schemaOf = new Map(tools.map((t) => [String(t.name), t.outputSchema as Obj]));
      let reportId: string | undefined;
      for (const [tool, q] of questions(domain)) {
        const args = tool === "report_get" ? { id: reportId } : q;
        const r = await mcp("tools/call", { name: tool, arguments: args });
        assert.ok(!r.isError && r.structuredContent, `${tool} answers with structuredContent`);
        // deno-lint-ignore no-explicit-any
        const check = sdk.getValidator(schemaOf.get(tool) as any)(r.structuredContent);
        assert.ok(check.valid, `${tool} ${JSON.stringify(args)}: ${check.errorMessage}`);
        if (tool === "reports_list") {
          reportId = ((r.structuredContent as Obj).reports as Obj[])[0]?.id as string;
        }
      }
    } finally {
      for (const c of clients) await c.close();
      await doneReading(INSPECTOR);
    }
  },
});

/**
 * Whether `npx` runs here (the Inspector's CLI comes from the npm registry through it, about 110 MB the first
 * time); INSPECTOR_CLI=off leaves the CLI out where the registry cannot be reached.
 */
function hasNpx(): boolean {
  if (Deno.env.get("INSPECTOR_CLI") === "off") return false;
  try {
    return new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

Deno.test({
  name: CLI,
  ignore: !withCli,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { app, key } = await sharedDemo();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => app.fetch(req));
    try {
      const out = await new Deno.Command("npx", {
        args: [
          "-y",
          "@modelcontextprotocol/inspector@2.12.0",
          "--cli",
          "--transport",
          "http",
          "--server-url",
          `http://127.0.0.1:${server.addr.port}/mcp`,
          "--header",
          `Authorization: Bearer ${key}`,
          "--method",
          "tools/list",
          "--strict",
        ],
        stdin: "null",
        env: { npm_config_update_notifier: "false" },
        signal: AbortSignal.timeout(300_000),
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      // npm's own notices (engine ranges) are not the Inspector's
      const inspector = stderr.split("\n").filter((l) =>
        l.trim() && !/^npm (warn|notice)|^\s+(package|required|current):|^\s*}$/.test(l)
      );
      assert.equal(out.code, 0, stderr.slice(-2000));
      assert.deepEqual(inspector, [], "the Inspector printed no finding");
      const listed = JSON.parse(new TextDecoder().decode(out.stdout));
      assert.ok(listed.tools.length >= 20, "the Inspector read the tool list");
    } finally {
      await server.shutdown();
      await doneReading(CLI);
    }
  },
});
