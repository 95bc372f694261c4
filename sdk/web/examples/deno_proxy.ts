/**
 * A first-party reverse proxy for the web SDK, on Deno with Hono: the page sends events to its own
 * origin (`host: ""` or `host: "https://www.example.com"`), and this forwards them to the service.
 * Same-origin requests need no CORS preflight and are not blocked as third-party by content blockers.
 *
 *   SERVICE_URL=https://collect.example.net SERVER_KEY=svc_sk_… deno run -A sdk/web/examples/deno_proxy.ts
 *
 * Or mount `eventsProxy(SERVICE_URL, SERVER_KEY)` in your own Hono app: `app.route("/", eventsProxy(url, key))`.
 * With the environment's server key (kept on your server, never in a page) the service takes the visitor's
 * address from `X-Visitor-Address` for country, city and network; without it, every visitor has this
 * server's address.
 */
import { Hono } from "hono";

const PATH = "/v1/behavior/events";
// What the service needs from the browser's request; cookies and everything else stay behind.
const FORWARDED = ["content-type", "origin", "user-agent", "accept-language"];

export function eventsProxy(serviceUrl: string, serverKey?: string): Hono {
  const app = new Hono();
  app.post(PATH, async (c) => {
    const headers = new Headers();
    for (const name of FORWARDED) {
      const v = c.req.header(name);
      if (v) headers.set(name, v);
    }
    // The visitor's address (the socket peer, not a header the browser wrote), for country and city: the
    // service takes it when the server key vouches for this proxy.
    const addr = (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr?.hostname;
    if (serverKey && addr) {
      headers.set("x-forwarded-key", serverKey);
      headers.set("x-visitor-address", addr);
    }
    const res = await fetch(serviceUrl.replace(/\/+$/, "") + PATH, {
      method: "POST",
      headers,
      body: await c.req.arrayBuffer(),
    });
    // Status, Retry-After and the error body go back to the SDK unchanged.
    const out = new Headers();
    for (const name of ["content-type", "retry-after"]) {
      const v = res.headers.get(name);
      if (v) out.set(name, v);
    }
    return new Response(res.body, { status: res.status, headers: out });
  });
  return app;
}

if (import.meta.main) {
  const service = Deno.env.get("SERVICE_URL");
  if (!service) throw new Error("set SERVICE_URL to the analytics service's base address");
  const app = eventsProxy(service, Deno.env.get("SERVER_KEY"));
  Deno.serve({ port: Number(Deno.env.get("PORT") ?? 8080) }, (req, info) => app.fetch(req, info));
}
