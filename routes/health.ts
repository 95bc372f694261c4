import { Hono } from "hono";
import type { AppContext } from "../lib/context.ts";
import { keys } from "../lib/store/keys.ts";

export function healthRoutes(ctx: AppContext): Hono {
  const app = new Hono();
  app.get("/healthz", async (c) => {
    // A cheap KV read proves the store answers.
    await ctx.deps.kv.get(keys.meta("health"));
    return c.json({ ok: true, time: new Date(ctx.deps.clock.now()).toISOString() });
  });
  return app;
}
