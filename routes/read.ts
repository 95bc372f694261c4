/**
 * The HTTP tool API, mounted at /v1/read. `GET /` lists the tools this key can run with JSON Schemas;
 * `POST /:tool` runs one. Errors use the Error body with the read API's codes (see lib/schemas/read.ts).
 */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { errorBody, HttpError, invalid } from "../lib/errors.ts";
import { authenticateRead } from "../lib/read/auth.ts";
import { runTool, takeRate } from "../lib/read/run.ts";
import { listing, TOOLS } from "../tools/registry.ts";

export function readRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  // Own error mapping, so the read API answers the same mounted anywhere.
  app.onError((err, c) => {
    const now = ctx.deps.clock.now();
    if (err instanceof HttpError) {
      return c.json(errorBody(err.code, err.message, now), err.status as 400, err.headers);
    }
    ctx.deps.log.error("read tool failed", {
      path: c.req.path,
      error: String(err?.stack ?? err).slice(0, 2000),
    });
    return c.json(errorBody("OPERATION_FAILED", "unexpected server error; retry later", now), 500);
  });

  app.get("/", async (c) => {
    const p = await authenticateRead(ctx, c.req.header("authorization"));
    await takeRate(ctx, p);
    return c.json({ tools: TOOLS.map(listing) });
  });

  app.post("/:tool", async (c) => {
    const p = await authenticateRead(ctx, c.req.header("authorization"));
    let input: unknown = {};
    const text = await c.req.text();
    if (text.trim() !== "") {
      try {
        input = JSON.parse(text);
      } catch {
        throw invalid(
          'the body is not JSON; send a JSON object of the tool\'s inputs, e.g. {"period":"last_7_days"}',
        );
      }
    }
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      throw invalid("the body must be a JSON object of the tool's inputs");
    }
    const answer = await runTool(ctx, p, c.req.param("tool"), input, "api");
    return c.json(answer);
  });

  return app;
}
