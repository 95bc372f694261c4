/** GET /openapi.json: OpenAPI 3.1 generated from the same zod schemas the handlers validate with. */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { portableSchema } from "../lib/answers/portable_schema.ts";

export function openapiRoutes(_ctx: AppContext): Hono {
  const app = new Hono();
  // built once: schemas never change at run time. Its module is loaded on the first ask, not at start: it
  // held ~10 MB of a process's memory from import on (measured: app.ts alone 80 -> 70 MB anonymous), where
  // most processes never serve the document
  let doc: Promise<unknown> | null = null;
  // nullable fields as anyOf, not type arrays: the forms OpenAPI and MCP tooling accept without warnings
  const built = () => import("./openapi/document.ts").then((m) => portableSchema(m.buildOpenApi()));
  app.get("/openapi.json", async (c) => {
    doc ??= built();
    try {
      return c.json(await doc);
    } catch (e) {
      doc = null; // a failed load is tried again by the next ask
      throw e;
    }
  });
  return app;
}
