/** POST /v1/behavior/events: batches from the web SDK (application/json or text/plain bodies). */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { errorBody, HttpError, rateLimited } from "../lib/errors.ts";
import { MB, readJsonBody } from "../lib/http.ts";
import { IngestBody } from "../lib/schemas/events.ts";
import { authorizeWebWrite, preflightAllowed } from "../lib/ingest/web_access.ts";
import { ingestWebEvents } from "../lib/ingest/web.ts";
import { clientAddress, type ConnInfo } from "../lib/client_address.ts";
import { afterWebIngest } from "../lib/ingest/after_web.ts";

function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
    // sendBeacon always sends in credentials mode; we set and read no cookie, and echo the exact origin.
    "Access-Control-Allow-Credentials": "true",
    "Vary": "Origin",
  };
}

export function eventsRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  app.options("/events", async (c) => {
    const origin = c.req.header("origin");
    if (!origin || !(await preflightAllowed(ctx, origin))) {
      return c.json(
        errorBody("FORBIDDEN", "origin is not allowed to send events", ctx.deps.clock.now()),
        403,
      );
    }
    return c.body(null, 204, corsHeaders(origin));
  });

  app.post("/events", async (c) => {
    const origin = c.req.header("origin") ?? null;
    const cors = origin ? corsHeaders(origin) : {};
    try {
      const body = await readJsonBody(c.req.raw, IngestBody, MB);
      const access = await authorizeWebWrite(ctx, body.api_key, origin);
      const rate = await ctx.rates.take("public", access.keyId, access.ratePerMinute);
      if (!rate.ok) {
        throw rateLimited(rate.retryAfterS, "this api_key's per-minute event limit is spent; retry later");
      }
      const arrival = {
        receivedAt: ctx.deps.clock.now(),
        ip: clientAddress(c.req.raw, c.env as ConnInfo | undefined, ctx.deps.config.trustProxy),
        userAgent: c.req.header("user-agent") ?? null,
      };
      const result = await ingestWebEvents(ctx, access, body.batch, arrival);
      await afterWebIngest(ctx, result, arrival);
      return c.body(null, 204, cors);
    } catch (err) {
      // Refused origins get no CORS grant; every other answer is readable by the SDK.
      if (err instanceof HttpError && err.status !== 403) Object.assign(err.headers, cors);
      throw err;
    }
  });
  return app;
}
