import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";

// Placeholder until the read-engine issue lands: POST /orgs/:org/import goes here.
export function adminImportRoutes(_ctx: AppContext): Hono {
  return new Hono();
}
