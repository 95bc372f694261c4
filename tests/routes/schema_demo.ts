/** The demo as the dev start has it, raw MCP over /mcp, a question for every tool, and a strict validator. */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createApp } from "../../app.ts";
import { demoSite } from "../helpers/demo_site.ts";

export type Obj = Record<string, unknown>;
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
  const { deps, app, tenant } = await demoSite(3_000, { reports: true });
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

/** initialize's params for a protocol version. */
export const WITH_VERSION = (v: string) => ({
  protocolVersion: v,
  capabilities: {},
  clientInfo: { name: "schema-check", version: "1.0.0" },
});

/** The official MCP client on the 2025 handshake or a pinned modern revision, through the app's HTTP handler. */
export async function officialClient(app: AppLike, key: string, pin: string): Promise<Client> {
  const client = new Client({ name: "schema-check", version: "1.0.0" }, {
    // a 2025 revision is the legacy handshake (initialize); 2026-07-28 and later are pinned
    versionNegotiation: pin < "2026" ? { mode: "legacy" } : { mode: { pin } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (u: string | URL | Request, init?: RequestInit) =>
        Promise.resolve(app.fetch(new Request(u, init))),
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}
