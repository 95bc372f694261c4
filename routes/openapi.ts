/** GET /openapi.json: OpenAPI 3.1 generated from the same zod schemas the handlers validate with. */
import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { buildOpenApi } from "./openapi/document.ts";
import { portableSchema } from "../lib/answers/portable_schema.ts";

export function openapiRoutes(_ctx: AppContext): Hono {
  const app = new Hono();
  let doc: unknown = null; // built once: schemas never change at run time
  // nullable fields as anyOf, not type arrays: the forms OpenAPI and MCP tooling accept without warnings
  app.get("/openapi.json", (c) => c.json(doc ??= portableSchema(buildOpenApi())));
  return app;
}
