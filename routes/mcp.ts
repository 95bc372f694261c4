/**
 * The MCP server at /mcp: Streamable HTTP, no session, protocol revision 2026-07-28 plus the 2025 revisions
 * through the SDK's stateless fallback. A read key is the bearer token; tools come from the same registry
 * and the same `runTool` as the HTTP API, so structuredContent is the HTTP answer, byte for byte in JSON.
 */
import { Hono } from "hono";
import {
  createMcpHandler,
  type McpRequestContext,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from "@modelcontextprotocol/server";
import type { AppContext } from "../lib/context.ts";
import { errorBody, HttpError } from "../lib/errors.ts";
import { authenticateRead, type ReadPrincipal } from "../lib/read/auth.ts";
import { runTool } from "../lib/read/run.ts";
import { PROMPTS } from "../lib/read/prompts.ts";
import { renderAnswer } from "../lib/answers/render.ts";
import { listing, narrowTools, toolByName } from "../tools/registry.ts";

export const MCP_SERVER_INFO = { name: "behavior-read", version: "1.0.0" };

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function buildServer(app: AppContext, principal: ReadPrincipal, url: string): Server {
  const tools = narrowTools(new URL(url).searchParams.get("tools"));
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: {}, prompts: {} },
    instructions:
      "Read-only analytics of one organization. Call account_overview first; every answer starts with " +
      "its scope (period, timezone, environment, website or app, traffic).",
  });
  server.setRequestHandler("tools/list", () => ({
    tools: tools.map((t) => {
      const l = listing(t);
      return {
        name: l.name,
        title: l.name.replaceAll("_", " "),
        description: l.description,
        inputSchema: l.input_schema as { type: "object" },
        outputSchema: l.output_schema as { type: "object" },
        annotations: READ_ONLY,
      };
    }),
  }));
  server.setRequestHandler("tools/call", async (request) => {
    const name = request.params.name;
    const tool = toolByName(name, tools);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    try {
      const answer = await runTool(app, principal, name, request.params.arguments ?? {}, "mcp", tools);
      const result = {
        content: [{ type: "text" as const, text: renderAnswer(name, answer) }],
        structuredContent: answer,
      };
      return server.projectCallToolResult(result, listing(tool).output_schema);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      // Expected refusals (allowance used, rate, invalid input) are tool results the assistant can read.
      const text = `${err.code}: ${err.message}` +
        (err.headers["Retry-After"] ? ` (retry after ${err.headers["Retry-After"]} s)` : "");
      return { content: [{ type: "text" as const, text }], isError: true };
    }
  });
  server.setRequestHandler("prompts/list", () => ({
    prompts: PROMPTS.map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      arguments: p.args.map((a) => ({ name: a.name, description: a.description, required: false })),
    })),
  }));
  server.setRequestHandler("prompts/get", (request) => {
    const p = PROMPTS.find((x) => x.name === request.params.name);
    if (!p) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${request.params.name} not found`);
    }
    return {
      description: p.description,
      messages: [{
        role: "user" as const,
        content: { type: "text" as const, text: p.text(request.params.arguments ?? {}) },
      }],
    };
  });
  return server;
}

function unauthorizedResponse(message: string, now: number, hadToken: boolean): Response {
  const challenge = hadToken
    ? `Bearer realm="mcp", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
    : `Bearer realm="mcp"`;
  return Response.json(errorBody("UNAUTHORIZED", message, now), {
    status: 401,
    headers: { "WWW-Authenticate": challenge },
  });
}

export function mcpRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const handler = createMcpHandler((rc: McpRequestContext) => {
    const principal = rc.authInfo?.extra?.principal as ReadPrincipal;
    return buildServer(ctx, principal, rc.requestInfo?.url ?? "http://localhost/mcp");
  }, {
    legacy: "stateless",
    onerror: (e) => ctx.deps.log.warn("mcp request refused", { error: e.message.slice(0, 300) }),
  });

  app.all("*", async (c) => {
    const now = ctx.deps.clock.now();
    const authorization = c.req.header("authorization");
    let principal: ReadPrincipal;
    try {
      principal = await authenticateRead(ctx, authorization);
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) {
        return unauthorizedResponse(err.message, now, !!authorization);
      }
      if (err instanceof HttpError) return c.json(errorBody(err.code, err.message, now), err.status as 403);
      throw err;
    }
    return handler.fetch(c.req.raw, {
      authInfo: { token: "read-key", clientId: principal.key.id, scopes: ["read"], extra: { principal } },
    });
  });
  return app;
}
