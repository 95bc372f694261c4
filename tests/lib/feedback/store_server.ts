/**
 * A local stand-in for the stores: serves recorded responses of the documented shapes (App Store Connect,
 * Google OAuth and Play Developer API, the App Store feed and lookup, the Play listing page). Tests point
 * deps.fetch at it; the path and query decide the answer, so pagination and errors are data.
 */
export interface Recorded {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface StoreServer {
  url: string;
  /** Requests seen, as "METHOD host path?query" with the original host. */
  seen: { method: string; url: string; headers: Headers; body: string }[];
  routes: Map<string, Recorded | Recorded[]>;
  fetch: typeof fetch;
  close(): Promise<void>;
}

/** Routes are keyed by "host/path?query" of the real store URL (query as sent). */
export function startStoreServer(): StoreServer {
  const routes = new Map<string, Recorded | Recorded[]>();
  const seen: StoreServer["seen"] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const u = new URL(req.url);
    const original = u.searchParams.get("__host") ?? "";
    u.searchParams.delete("__host");
    const key = `${original}${u.pathname}${u.search}`;
    seen.push({ method: req.method, url: key, headers: req.headers, body: await req.text() });
    let r = routes.get(key);
    if (Array.isArray(r)) r = r.length > 1 ? r.shift() : r[0];
    if (!r) {
      return new Response(JSON.stringify({ errors: [{ detail: `no recording for ${key}` }] }), {
        status: 404,
      });
    }
    const body = typeof r.body === "string" ? r.body : JSON.stringify(r.body);
    return new Response(body, { status: r.status ?? 200, headers: r.headers });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const fetcher: typeof fetch = (input, init) => {
    const real = new URL(input instanceof Request ? input.url : String(input));
    const local = new URL(real.pathname + real.search, base);
    local.searchParams.set("__host", real.host);
    return fetch(local, init);
  };
  return { url: base, seen, routes, fetch: fetcher, close: () => server.shutdown() };
}
