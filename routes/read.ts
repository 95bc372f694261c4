/**
 * The HTTP tool API, mounted at /v1/read. `GET /` lists the tools this key can run with JSON Schemas;
 * `POST /:tool` runs one. Errors use the Error body with the read API's codes (routes/openapi/read_paths.ts),
 * mapped by the app's one `onError`.
 */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { invalid } from "../lib/errors.ts";
import { authenticate } from "../pipeline/caller.ts";
import { takeRate } from "../pipeline/meter.ts";
import { CATALOG, LaterInput, runCall } from "../pipeline/run.ts";
import { READ_BODY_LIMIT, readGuardedJson } from "../lib/schemas/request_body.ts";
import { TOOLS } from "../tools/registry.ts";
import { listing } from "../pipeline/listing.ts";

/** The tool's inputs from the body: a JSON object, or nothing at all for a tool without inputs. */
async function toolInput(req: Request): Promise<Record<string, unknown>> {
  // the one body guard (size, depth, counts and string lengths as the bytes arrive; then well-formed text
  // and numbers a double can hold), with this API's own wording for a body that is not JSON at all
  const body = await readGuardedJson(req, READ_BODY_LIMIT);
  if (body.ok && body.empty) return {};
  if (!body.ok && body.notJson) {
    throw invalid(
      'the body is not JSON; send a JSON object of the tool\'s inputs, e.g. {"period":"last_7_days"}',
    );
  }
  if (!body.ok) throw invalid(body.message);
  const input = body.value;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw invalid("the body must be a JSON object of the tool's inputs");
  }
  return input as Record<string, unknown>;
}

export function readRoutes(ctx: AppContext): Hono {
  const app = new Hono();

  app.get("/", async (c) => {
    const caller = await authenticate(ctx, c.req.header("authorization"));
    await takeRate(ctx, caller);
    return c.json({ tools: TOOLS.map(listing) });
  });

  app.post("/:tool", async (c) => {
    // who comes first (401/403 before anything else); the pipeline then finds the tool and takes the key's
    // rate before it reads the body, so the body is read only for a call that may run
    const caller = await authenticate(ctx, c.req.header("authorization"));
    const { answer } = await runCall(
      ctx,
      {
        face: "api",
        metering: { kind: "caller", caller, face: "api" },
        catalog: CATALOG,
      },
      c.req.param("tool"),
      new LaterInput(() => toolInput(c.req.raw)),
    );
    return c.json(answer);
  });

  return app;
}
