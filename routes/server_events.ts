/** POST /v1/behavior/server-events: crawler hits reported by a customer's web server (server key). */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { forbidden, invalid, rateLimited, tooLarge } from "../lib/errors.ts";
import { MB, PER_VALUE, readJson, undecodable, validate } from "../lib/schemas/request_body.ts";
import { clientAddress, type ConnInfo } from "../lib/enrich/client_address.ts";
import { MAX_HITS, ServerEventsEnvelope } from "../lib/schemas/server_events.ts";
import { authorizeServerWrite, refuseBlockedAddress } from "../lib/ingest/server_access.ts";
import { clockOffset, ingestHits } from "../lib/ingest/hits.ts";

export function serverEventsRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.post("/server-events", async (c) => {
    const { deps } = ctx;
    if (c.req.header("origin") !== undefined) {
      throw forbidden("server keys are sent from servers: a request with an Origin header is refused");
    }
    const addr = clientAddress(c.req.raw, c.env as ConnInfo | undefined, deps.config.trustProxy);
    await refuseBlockedAddress(ctx, addr);
    const access = await authorizeServerWrite(ctx, c.req.header("authorization") ?? null, addr);
    const rate = await ctx.rates.take("server", access.keyId, deps.config.serverKeyRatePerMinute);
    if (!rate.ok) {
      throw rateLimited(rate.retryAfterS, "this server key's per-minute limit is spent; retry later");
    }

    const coding = undecodable(c.req.raw); // 422, the spec's status for this endpoint's bodies
    if (coding) {
      throw invalid(`body: Content-Encoding ${coding} is not supported; send it uncompressed or gzip`);
    }
    const body = await readJson(c.req.raw, MB, PER_VALUE); // shape-scanned chunk by chunk as it arrives
    const events = (body as { events?: unknown } | null)?.events;
    if (Array.isArray(events) && events.length > MAX_HITS) {
      throw tooLarge(`at most ${MAX_HITS} events per request; got ${events.length}`);
    }
    const envelope = validate(ServerEventsEnvelope, body);
    const receivedAt = deps.clock.now();
    const result = await ingestHits(ctx, {
      org: access.org,
      touchpoint: access.touchpoint.id,
      env: access.env,
      touchpoints: access.touchpoints,
      receivedAt,
      clockOffsetMs: clockOffset((body as { sent_at?: unknown }).sent_at, receivedAt),
    }, envelope.events);
    return c.json(result, 202);
  });
  return app;
}
