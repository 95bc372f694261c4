/** Fetch-style servers: Deno.serve, Bun.serve, Cloudflare/Vercel-style workers, Hono's app.fetch. */
import type { CrawlReporter } from "../reporter.ts";

/** What a fetch-style handler receives after the request: Deno's info, Bun's server, or a worker's env. */
export type HandlerArgs = unknown[];

export type FetchHandler<A extends HandlerArgs> = (
  req: Request,
  ...args: A
) => Response | Promise<Response>;

/** Reports the request after the handler answered; the report itself is synchronous and never throws. */
export function withCrawlReporting<A extends HandlerArgs>(
  reporter: CrawlReporter,
  handler: FetchHandler<A>,
): (req: Request, ...args: A) => Promise<Response> {
  return async (req: Request, ...args: A): Promise<Response> => {
    const receivedAt = reporter.now();
    let res: Response;
    try {
      res = await handler(req, ...args);
    } catch (err) {
      observeFetch(reporter, req, null, socketIpOf(args[0], req), receivedAt);
      throw err;
    }
    observeFetch(reporter, req, res, socketIpOf(args[0], req), receivedAt);
    return res;
  };
}

/** Hands one fetch-style exchange to the reporter (a null response means the handler threw). */
export function observeFetch(
  reporter: CrawlReporter,
  req: Request,
  res: Response | null,
  socketIp: string | null,
  receivedAt: number,
): void {
  try {
    reporter.observe(
      { method: req.method, url: req.url, headers: req.headers, socketIp },
      {
        status: res?.status ?? null,
        contentType: res?.headers.get("content-type") ?? null,
      },
      receivedAt,
    );
  } catch {
    // observe never throws; this guards against a hostile Request implementation.
  }
}

/**
 * The peer address from whatever the runtime passes beside the request: Deno's `info.remoteAddr`,
 * Bun's `server.requestIP(req)`, or @hono/node-server's `{ incoming }`. Workers expose none.
 */
export function socketIpOf(extra: unknown, req: Request): string | null {
  try {
    if (typeof extra !== "object" || extra === null) return null;
    const deno = (extra as { remoteAddr?: { hostname?: unknown } }).remoteAddr;
    if (typeof deno?.hostname === "string") return deno.hostname;
    const bun = extra as {
      requestIP?: (r: Request) => { address?: unknown } | null;
    };
    if (typeof bun.requestIP === "function") {
      const address = bun.requestIP(req)?.address;
      return typeof address === "string" ? address : null;
    }
    const node = (extra as { incoming?: { socket?: { remoteAddress?: unknown } } })
      .incoming;
    const remote = node?.socket?.remoteAddress;
    return typeof remote === "string" ? remote : null;
  } catch {
    return null;
  }
}
