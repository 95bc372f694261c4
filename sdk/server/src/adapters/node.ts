/** Node's http.createServer listeners and Express/Connect middleware (also Bun's and Deno's node:http). */
import type { HeaderReader } from "../hit.ts";
import type { CrawlReporter } from "../reporter.ts";

/** The parts of http.IncomingMessage (or Express's Request) the SDK reads. */
export interface NodeRequestLike {
  method?: string;
  url?: string;
  /** Express keeps the full target here when routers strip their mount path from `url`. */
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  socket?: { remoteAddress?: string } | null;
}

/** The parts of http.ServerResponse the SDK reads. */
export interface NodeResponseLike {
  statusCode: number;
  getHeader(name: string): unknown;
  once(event: "finish", listener: () => void): unknown;
}

/** Express/Connect: `app.use(expressCrawlReporter(reporter))` before the routes. */
export function expressCrawlReporter(
  reporter: CrawlReporter,
): (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next: (err?: unknown) => void,
) => void {
  return (req, res, next) => {
    watchNodeResponse(reporter, req, res);
    next();
  };
}

/**
 * `http.createServer(withNodeCrawlReporting(reporter, (req, res) => { ... }))`. createServer's overloads give
 * the listener no contextual type, so unannotated parameters default to `any` rather than to the narrow shapes.
 */
export function withNodeCrawlReporting<
  // deno-lint-ignore no-explicit-any
  Req extends NodeRequestLike = any,
  // deno-lint-ignore no-explicit-any
  Res extends NodeResponseLike = any,
>(
  reporter: CrawlReporter,
  listener: (req: Req, res: Res) => void,
): (req: Req, res: Res) => void {
  return (req, res) => {
    watchNodeResponse(reporter, req, res);
    listener(req, res);
  };
}

/** Reports once the response is fully handed to the OS ("finish"); an aborted response is not a hit. */
export function watchNodeResponse(
  reporter: CrawlReporter,
  req: NodeRequestLike,
  res: NodeResponseLike,
): void {
  try {
    const receivedAt = reporter.now();
    res.once("finish", () => {
      try {
        const contentType = res.getHeader("content-type");
        reporter.observe(
          {
            method: req.method ?? "GET",
            url: req.originalUrl ?? req.url ?? "/",
            headers: nodeHeaders(req.headers),
            socketIp: req.socket?.remoteAddress ?? null,
          },
          {
            status: res.statusCode,
            contentType: contentType == null ? null : String(contentType),
          },
          receivedAt,
        );
      } catch {
        // never into the host
      }
    });
  } catch {
    // never into the host
  }
}

function nodeHeaders(headers: NodeRequestLike["headers"]): HeaderReader {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}
