/**
 * The MCP server at /mcp: Streamable HTTP, no session, protocol revision 2026-07-28 plus the 2025 revisions
 * through the SDK's stateless fallback. The bearer token is a read key or an access token of an assistant
 * connected as a person (OAuth, routes/oauth.ts); tools come from the same registry and the same `runTool` as
 * the HTTP API, so structuredContent is the HTTP answer, byte for byte in JSON. Refusals before the MCP
 * exchange (401 with the challenge that points at the OAuth discovery documents, 403) go to the app's
 * `onError`.
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
import { HttpError, invalid, isFailure } from "../lib/errors.ts";
import { READ_BODY_LIMIT, readGuardedJson } from "../lib/schemas/request_body.ts";
import { refusedParams } from "./mcp_params.ts";
import { renderAnswer } from "../lib/answers/render.ts";
import { authenticate, bearerToken } from "../pipeline/caller.ts";
import type { Caller } from "../pipeline/access.ts";
import { describeChoices, touchpointsNamed } from "../pipeline/context.ts";
import { ORGANIZATION_DESCRIPTION, ORGANIZATION_INPUT, personCaller } from "../pipeline/person.ts";
import { authenticateAccessToken, isAccessToken, mcpUnauthorized } from "../lib/oauth/bearer.ts";
import { runTool, ToolNotFound } from "../pipeline/run.ts";
import { PROMPTS } from "../toolkit/prompts.ts";
import { narrowTools } from "../tools/registry.ts";
import { listing, personListing } from "../pipeline/listing.ts";
import type { Tool } from "../toolkit/tool.ts";
import { toolIcons, toolTitle } from "../toolkit/titles.ts";
import { portableSchema } from "../lib/answers/portable_schema.ts";
import { PERIOD_HELP, PERIOD_PATTERN } from "../lib/answers/period.ts";
import { hasView, UI_EXTENSION, VIEW_MIME, VIEW_TOOLS, VIEWS_DIR, viewUri } from "../views/catalog.ts";

export const MCP_SERVER_INFO = { name: "behavior-read", version: "1.0.0" };

/** The tool list changes only with a deploy; it differs per caller (a person's lists add organization). */
const TOOL_LIST_CACHE = { ttlMs: 3_600_000, cacheScope: "private" as const };

/** A view's HTML, read once from the build (the file system is read-only at run time on Deno Deploy). */
function viewReader(): (tool: string) => Promise<string> {
  const viewHtml = new Map<string, Promise<string>>();
  return (tool) => {
    let html = viewHtml.get(tool);
    if (!html) {
      html = Deno.readTextFile(new URL(`${tool}.html`, VIEWS_DIR)).catch(() => {
        viewHtml.delete(tool);
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `view of ${tool} not built (deno task build)`,
        );
      });
      viewHtml.set(tool, html);
    }
    return html;
  };
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** An expected refusal (allowance used, rate, invalid input) as a tool result the assistant can read. */
function refusal(err: HttpError) {
  // the message may quote what was sent (a field name): a lone surrogate in it is shown as U+FFFD
  const text = (`${err.code}: ${err.message}` +
    (err.headers["Retry-After"] ? ` (retry after ${err.headers["Retry-After"]} s)` : "")).toWellFormed();
  return { content: [{ type: "text" as const, text }], isError: true };
}

const ORGANIZATION = { name: ORGANIZATION_INPUT, description: ORGANIZATION_DESCRIPTION };

function instructions(caller: Caller): string {
  const scope =
    "every answer starts with its scope (period, timezone, environment, website or app, traffic).";
  if (caller.kind === "read_key") {
    return `Read-only analytics of one organization. Call account_overview first; ${scope}`;
  }
  const orgs = caller.orgs.map((o) => `"${o.name}"`).join(", ");
  return `Read-only analytics of the organizations this person allowed (${orgs}). Call account_overview ` +
    `first; pass organization (id or name) to every tool when there are several; ${scope}`;
}

function buildServer(
  app: AppContext,
  caller: Caller,
  url: string,
  readView: (tool: string) => Promise<string>,
): Server {
  const tools = narrowTools(new URL(url).searchParams.get("tools"));
  const listed = (t: Tool) => caller.kind === "person" ? personListing(t, ORGANIZATION) : listing(t);
  const server = new Server(MCP_SERVER_INFO, {
    // MCP Apps: hosts that render views read them with resources/read; others ignore _meta.ui
    capabilities: { tools: {}, prompts: {}, resources: {}, extensions: { [UI_EXTENSION]: {} } },
    instructions: instructions(caller),
    cacheHints: { "tools/list": TOOL_LIST_CACHE },
  });
  server.setRequestHandler("tools/list", () => ({
    tools: tools.map((t) => {
      const l = listed(t);
      return {
        name: l.name,
        title: toolTitle(l.name),
        description: l.description,
        icons: toolIcons(l.name),
        inputSchema: portableSchema(l.input_schema) as { type: "object" },
        outputSchema: portableSchema(l.output_schema) as { type: "object" },
        annotations: { title: toolTitle(l.name), ...READ_ONLY },
        ...(hasView(l.name) ? { _meta: { ui: { resourceUri: viewUri(l.name) } } } : {}),
      };
    }),
  }));
  server.setRequestHandler("tools/call", async (request) => {
    const name = request.params.name;
    try {
      const call = { caller, face: "mcp" as const, tools };
      const { tool, answer } = await runTool(app, call, name, request.params.arguments ?? {});
      const result = {
        content: [{ type: "text" as const, text: renderAnswer(name, answer) }],
        structuredContent: answer,
      };
      return server.projectCallToolResult(result, listing(tool).output_schema);
    } catch (err) {
      if (err instanceof ToolNotFound) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name.toWellFormed()} not found`);
      }
      if (err instanceof HttpError) return refusal(err);
      throw err;
    }
  });
  const views = VIEW_TOOLS.filter((v) => tools.some((t) => t.name === v));
  server.setRequestHandler("resources/list", () => ({
    resources: views.map((v) => ({
      uri: viewUri(v),
      name: `${v} view`,
      title: `${toolTitle(v)} (chart)`,
      description: `Draws the answer of ${v} as a chart.`,
      mimeType: VIEW_MIME,
    })),
  }));
  // the resources capability covers templates too: none here (every view has its fixed ui:// address)
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request) => {
    const tool = views.find((v) => viewUri(v) === request.params.uri);
    if (!tool) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Resource ${request.params.uri.toWellFormed()} not found`,
      );
    }
    return {
      contents: [{
        uri: viewUri(tool),
        mimeType: VIEW_MIME,
        text: await readView(tool),
        // no outside origin at all: the host's default CSP (no connect, no remote scripts) is what it needs
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      }],
    };
  });
  server.setRequestHandler("prompts/list", () => ({
    prompts: PROMPTS.map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      arguments: p.args.map((a) => ({ name: a.name, description: a.description, required: false })),
    })),
  }));
  server.setRequestHandler("prompts/get", async (request) => {
    const p = PROMPTS.find((x) => x.name === request.params.name);
    if (!p) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${request.params.name} not found`);
    }
    // a period no tool takes is said now, not after the assistant has asked with it
    const period = request.params.arguments?.period;
    if (period !== undefined && period !== "" && !PERIOD_PATTERN.test(period)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `arguments.period: use ${PERIOD_HELP}`);
    }
    // so is a website or app none of the caller's organizations has (the tools would refuse it later)
    const touchpoint = request.params.arguments?.touchpoint;
    if (touchpoint !== undefined && touchpoint !== "") {
      const unknown = await unknownTouchpoint(app, caller, touchpoint);
      if (unknown) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `arguments.touchpoint: ${unknown}`);
      }
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

/**
 * Why no organization the caller reads has a website or app that `input` names (by id, name or domain, as
 * the tools take it), with the choices; null when one has. A name several share is left to the tool, which
 * asks for the id.
 */
async function unknownTouchpoint(app: AppContext, caller: Caller, input: string): Promise<string | null> {
  const orgs = caller.kind === "read_key" ? [caller.access.org] : caller.orgs;
  const env = caller.kind === "read_key" ? caller.access.env : caller.env;
  const choices: string[] = [];
  for (const org of orgs) {
    const tps = (await app.directory.touchpoints(org.id)).filter((t) => !t.archived);
    if (touchpointsNamed(tps, input).length) return null;
    if (tps.length) choices.push(describeChoices(tps, env));
  }
  return `no website or app "${input}"` + (choices.length ? `; choose one of ${choices.join(", ")}` : "");
}

/** The caller behind the bearer token: an assistant's access token or a read key; 401 with the challenge. */
async function callerOf(ctx: AppContext, authorization: string | undefined, url: string): Promise<Caller> {
  const token = bearerToken(authorization);
  if (token && isAccessToken(token)) return personCaller(await authenticateAccessToken(ctx, token, url));
  return await authenticate(ctx, authorization).catch((err) => {
    throw isFailure(err, "unauthorized") ? mcpUnauthorized(ctx, url, err.message, !!token) : err;
  });
}

/**
 * A JSON-RPC message through the one body guard: past the read API's size (413) or the depth, count and
 * string limits (422) it is refused as its bytes arrive, and a lone surrogate or a number no double holds is
 * a 422 naming where. A body that is not JSON (or empty) goes on as sent, for the transport's parse error;
 * a request whose params have the wrong shape is answered here (routes/mcp_params.ts).
 */
async function guardedMessage(raw: Request, version: string | undefined): Promise<Request | Response> {
  const body = await readGuardedJson(raw, READ_BODY_LIMIT);
  if (!body.ok && !body.notJson) throw invalid(body.message);
  // the 2026 revision has no JSON-RPC batches; the 2025 fallback the transport hands an array to would answer
  // that the revision itself is unsupported
  if (version === CURRENT_REVISION && body.text.trimStart().startsWith("[")) {
    return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: NO_BATCHES } }, {
      status: 400,
    });
  }
  return refusedParams(body.text) ?? new Request(raw, { body: body.text });
}

/** The protocol revision this server speaks natively (the 2025 ones through the SDK's fallback). */
const CURRENT_REVISION = "2026-07-28";
const NO_BATCHES = `Bad Request: JSON-RPC batches are not part of protocol revision ${CURRENT_REVISION}; ` +
  "send one request per POST";

/**
 * A protocol revision is a date (`2026-07-28`). The header is the client's own text and the transport quotes
 * it in the messages its `onerror` logs, so anything else is refused here, before the transport, with a
 * message that names the header but not its value: the "request refused" log line then never carries text a
 * client chose (an address, an identifier) beyond a date's ten characters.
 */
const REVISION = /^\d{4}-\d{2}-\d{2}$/;
const BAD_VERSION =
  "Bad Request: the MCP-Protocol-Version header must be a protocol revision date (YYYY-MM-DD), " +
  "such as 2026-07-28";

function refusedVersion(ctx: AppContext, version: string | undefined): Response | null {
  if (version === undefined || REVISION.test(version)) return null;
  ctx.deps.log.warn("mcp request refused", { error: "MCP-Protocol-Version header is not a revision date" });
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: BAD_VERSION } }, {
    status: 400,
  });
}

export function mcpRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  const readView = viewReader(); // this app's: read once per view, for as long as the process serves
  const handler = createMcpHandler((rc: McpRequestContext) => {
    const caller = rc.authInfo?.extra?.caller as Caller;
    return buildServer(ctx, caller, rc.requestInfo?.url ?? "http://localhost/mcp", readView);
  }, {
    legacy: "stateless",
    onerror: (e) => ctx.deps.log.warn("mcp request refused", { error: e.message.slice(0, 300) }),
  });

  app.all("*", async (c) => {
    const caller = await callerOf(ctx, c.req.header("authorization"), c.req.url);
    narrowTools(new URL(c.req.url).searchParams.get("tools")); // an unknown tool name is a 422 before any exchange
    const refused = refusedVersion(ctx, c.req.header("mcp-protocol-version"));
    if (refused) return refused;
    const req = c.req.method === "POST"
      ? await guardedMessage(c.req.raw, c.req.header("mcp-protocol-version"))
      : c.req.raw;
    if (req instanceof Response) return req;
    return handler.fetch(req, {
      authInfo: { token: caller.kind, clientId: caller.id, scopes: ["read"], extra: { caller } },
    });
  });
  return app;
}
