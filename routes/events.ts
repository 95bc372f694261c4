/** POST /v1/behavior/events: batches from the web SDK (application/json or text/plain bodies). */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { errorBody, HttpError, invalid, rateLimited } from "../lib/errors.ts";
import { contentCoding, MB, PER_VALUE, readJsonBody } from "../lib/schemas/request_body.ts";
import { IngestBody } from "../lib/schemas/events.ts";
import { authorizeWebWrite, preflightAllowed } from "../lib/ingest/web_access.ts";
import { ingestWebEvents } from "../lib/ingest/web.ts";
import { clientAddress, type ConnInfo } from "../lib/enrich/client_address.ts";
import { visitorAddress } from "../lib/ingest/forwarded_by.ts";

function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "86400",
    // Retry-After is not a safelisted response header: unexposed, the SDK's fetch cannot read it after a 429.
    "Access-Control-Expose-Headers": "Retry-After",
    // sendBeacon always sends in credentials mode; we set and read no cookie, and echo the exact origin.
    "Access-Control-Allow-Credentials": "true",
    "Vary": "Origin",
  };
}

export function eventsRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  app.options("/events", async (c) => {
    const origin = c.req.header("origin");
    if (!origin || !(await preflightAllowed(ctx.deps, origin))) {
      return c.json(
        errorBody("FORBIDDEN", "origin is not allowed to send events", ctx.deps.clock.now()),
        403,
      );
    }
    return c.body(null, 204, corsHeaders(origin));
  });

  // Every answer but a refused origin is readable by the SDK, including a 500 made by onError.
  app.use("/events", async (c, next) => {
    await next();
    const origin = c.req.header("origin");
    if (c.req.method === "POST" && origin && c.res.status !== 403) {
      for (const [k, v] of Object.entries(corsHeaders(origin))) c.res.headers.set(k, v);
    }
  });

  app.post("/events", async (c) => {
    // no encoded body: the key is inside it, so decoding would be work anyone could ask for; 422, the spec's
    // status for this endpoint's bodies
    const coding = contentCoding(c.req.raw);
    if (coding) {
      throw invalid(`body: Content-Encoding ${coding} is not taken here; send the batch uncompressed`);
    }
    // a body over 1 MB is a 422 here, the spec's status for this endpoint's bodies (the server endpoint's is 413)
    const body = await readJsonBody(c.req.raw, IngestBody, MB, PER_VALUE).catch((e) => {
      throw e instanceof HttpError && e.status === 413 ? invalid(e.message) : e;
    });
    const access = await authorizeWebWrite(ctx, body.api_key, c.req.header("origin") ?? null);
    const rate = await ctx.rates.take("public", access.keyId, access.ratePerMinute);
    if (!rate.ok) {
      throw rateLimited(rate.retryAfterS, "this api_key's per-minute event limit is spent; retry later");
    }
    const sender = clientAddress(c.req.raw, c.env as ConnInfo | undefined, ctx.deps.config.trustProxy);
    const arrival = {
      receivedAt: ctx.deps.clock.now(),
      // the sender's address, or the visitor's that a first-party proxy vouches for with its server key
      ip: await visitorAddress(ctx, c.req.raw.headers, access, sender),
      userAgent: c.req.header("user-agent") ?? null,
    };
    await ingestWebEvents(ctx, access, body.batch, arrival);
    return c.body(null, 204);
  });
  return app;
}
