/**
 * The whole HTTP app, built from deps with no globals. main.ts is the only caller in production;
 * tests call createApp with a :memory: KV and a fake clock.
 */
import { type Context, Hono, type Next } from "hono";
import type { Deps } from "./lib/deps.ts";
import { type AppContext, createContext } from "./lib/context.ts";
import { errorBody, HttpError, invalid } from "./lib/errors.ts";
import { hostProblem } from "./lib/schemas/host.ts";
import { guardedJsonStream } from "./lib/schemas/json_limits.ts";
import { healthRoutes } from "./routes/health.ts";
import { adminRoutes } from "./routes/admin.ts";
import { eventsRoutes } from "./routes/events.ts";
import { serverEventsRoutes } from "./routes/server_events.ts";
import { readRoutes } from "./routes/read.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { connectRoutes } from "./routes/connect.tsx";
import { appRoutes } from "./routes/app/index.tsx";

export interface App {
  fetch: (req: Request, info?: unknown) => Response | Promise<Response>;
  request: Hono["request"];
  ctx: AppContext;
}

const INGEST_METHODS: Record<string, string> = {
  "/v1/behavior/events": "POST, OPTIONS",
  "/v1/behavior/server-events": "POST",
};

/** The headers of routes/app/http.ts's pages, for answers under /app that did not pass through it. */
const PAGE_SECURITY_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function createApp(deps: Deps): App {
  const ctx = createContext(deps);
  const app = new Hono();

  app.onError((err, c) => {
    const now = deps.clock.now();
    if (err instanceof HttpError) {
      return c.json(errorBody(err.code, err.message, now), err.status as 400, err.headers);
    }
    deps.log.error("unexpected error", { path: c.req.path, error: String(err?.stack ?? err).slice(0, 2000) });
    return c.json(errorBody("OPERATION_FAILED", "unexpected server error; retry later", now), 500);
  });
  app.notFound((c) => {
    const now = deps.clock.now();
    // The ingest endpoints answer only with the spec's five codes: a wrong method there is a bad request.
    const allow = INGEST_METHODS[c.req.path];
    if (allow) {
      const msg = `${c.req.method} is not allowed on ${c.req.path}; send POST`;
      return c.json(errorBody("VALIDATION_ERROR", msg, now), 405, { Allow: allow });
    }
    return c.json(errorBody("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`, now), 404);
  });

  // A Host that is not an authority makes a URL that does not parse: refused before any route builds one.
  app.use("*", async (c, next) => {
    const problem = hostProblem(c.req.raw);
    if (problem) return c.json(errorBody("VALIDATION_ERROR", problem, deps.clock.now()), 400);
    await next();
  });
  // The read API and MCP read their own bodies: the body guard watches the bytes as those routes pull them.
  const guardBody = async (c: Context, next: Next) => {
    const raw = c.req.raw;
    if (raw.body) {
      c.req.raw = new Request(
        raw,
        { body: guardedJsonStream(raw.body, invalid), duplex: "half" } as RequestInit,
      );
    }
    await next();
  };
  // Every page's security headers, also on the answers the app's own middleware never reached (the 403 of
  // a form sent from another origin is thrown before routes/app/http.ts sets them).
  app.use("/app/*", async (c, next) => {
    await next();
    if (c.res.headers.has("Content-Security-Policy")) return;
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) c.res.headers.set(name, value);
  });
  app.use("/v1/read/*", guardBody);
  app.use("/mcp", guardBody);

  // a person who opens the service's own address in a browser lands in the app, not on a JSON 404
  app.get("/", (c) => c.redirect("/app", 302));
  app.route("/", healthRoutes(ctx));
  app.route("/", openapiRoutes(ctx));
  app.route("/admin/v1", adminRoutes(ctx));
  app.route("/v1/behavior", eventsRoutes(ctx));
  app.route("/v1/behavior", serverEventsRoutes(ctx));
  app.route("/v1/read", readRoutes(ctx));
  app.route("/mcp", mcpRoutes(ctx));
  app.route("/", oauthRoutes(ctx));
  app.route("/app/connect", connectRoutes(ctx));
  app.route("/app", appRoutes(ctx));

  return { fetch: (req, info) => app.fetch(req, info), request: app.request.bind(app), ctx };
}
