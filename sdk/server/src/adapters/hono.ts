/** Hono middleware, typed structurally so the SDK does not depend on Hono. */
import type { CrawlReporter } from "../reporter.ts";
import { observeFetch, socketIpOf } from "./fetch.ts";

/** The parts of Hono's Context the middleware reads. */
export interface HonoContextLike {
  req: { raw: Request };
  res: Response;
  env: unknown;
}

/** `app.use("*", honoCrawlReporter(reporter))`: reports after the rest of the chain has answered. */
export function honoCrawlReporter(
  reporter: CrawlReporter,
): (c: HonoContextLike, next: () => Promise<void>) => Promise<void> {
  return async (c, next) => {
    const receivedAt = reporter.now();
    await next();
    observeFetch(
      reporter,
      c.req.raw,
      c.res,
      socketIpOf(c.env, c.req.raw),
      receivedAt,
    );
  };
}
