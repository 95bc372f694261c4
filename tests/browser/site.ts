/**
 * The test site for browser tests: a few pages on 127.0.0.1 with a random port, served by Deno, loading
 * the SDK (bundled from source) through the copy-paste snippet of sdk/web/README.md.
 */
import { buildWebSdk } from "../../scripts/build_web.ts";
import { eventsProxy } from "../../sdk/web/examples/deno_proxy.ts";

export interface TestSite {
  url: string;
  /** Requests the site's proxy forwarded: content type and event ids of each. */
  proxied: Array<{ contentType: string | null; ids: string[] }>;
  stop(): Promise<void>;
}

export interface SiteOptions {
  apiKey: string;
  /** Where the SDK sends events (the service, or a proxy). */
  host: string;
  /** Extra init settings, as JSON. */
  settings?: Record<string, unknown>;
  /** Serve the README's Deno/Hono reverse proxy on the site's own origin, forwarding to this service. */
  proxyTo?: string;
}

const home = `
<h1>Acme</h1>
<nav><a id="to-pricing" href="/pricing?ref=nav&email=ann@example.com">Pricing</a></nav>
<p>Questions? Write to ann@example.com or call +1 (555) 123-4567.</p>
<button id="buy" class="btn btn-primary" type="button">Buy now</button>
<button id="contact" type="button">Mail ann@example.com</button>
<div id="banner" class="banner">Broken banner</div>
<section data-no-capture><button id="secret" type="button">Secret Agent Smith</button></section>
<form id="signup" onsubmit="event.preventDefault()">
  <input name="email" type="email" id="email">
  <input name="password" type="password" id="password">
  <input name="full_name" id="full_name">
  <select name="plan" id="plan"><option>starter</option><option>pro</option></select>
  <button type="submit" id="submit">Sign up</button>
</form>
<button id="spa" type="button" onclick="history.pushState({}, '', '/app/settings?tab=billing')">Settings</button>
<div style="height: 4000px"></div>
<p id="bottom">The end</p>`;

const pricing = `<h1>Pricing</h1><a href="/">Home</a><button id="plan-pro" type="button">Choose Pro</button>`;

const HTML = { "content-type": "text/html; charset=utf-8" };
const eventIds = (b: { batch?: Array<{ event_id: string }> }) => (b.batch ?? []).map((e) => e.event_id);

function page(title: string, body: string, opts: SiteOptions): string {
  const settings = JSON.stringify({ apiKey: opts.apiKey, host: opts.host, ...opts.settings });
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<script>
  window.bsdk = window.bsdk || function () { (window.bsdk.q = window.bsdk.q || []).push(arguments); };
  bsdk("init", ${settings});
</script>
<script async src="/sdk.iife.js"></script>
</head><body>${body}</body></html>`;
}

/** The same SDK as an ES module, the way a bundler-less site would import it. */
function esmPage(opts: SiteOptions): string {
  const settings = JSON.stringify({ apiKey: opts.apiKey, host: opts.host, ...opts.settings });
  return `<!doctype html><html><head><meta charset="utf-8"><title>Module</title>
<script type="module">
  import { init, track } from "/sdk.js";
  init(${settings});
  track("module_loaded", { ok: true });
</script></head><body><button id="buy" type="button">Buy now</button></body></html>`;
}

/** The SDK bundled once per test file: every site of the file serves the same source. */
let bundled: ReturnType<typeof buildWebSdk> | undefined;

export async function startSite(opts: SiteOptions): Promise<TestSite> {
  const bundles = await (bundled ??= buildWebSdk());
  const code = (file: string) => new TextDecoder().decode(bundles.find((b) => b.file === file)!.code);
  const [iife, esm] = [code("sdk.iife.js"), code("sdk.js")];
  const proxied: TestSite["proxied"] = [];
  const proxy = opts.proxyTo ? eventsProxy(opts.proxyTo) : null;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req, info) => {
    const path = new URL(req.url).pathname;
    if (proxy && path.startsWith("/v1/")) {
      const body = await req.arrayBuffer();
      try {
        proxied.push({
          contentType: req.headers.get("content-type"),
          ids: eventIds(JSON.parse(new TextDecoder().decode(body))),
        });
      } catch { /* not JSON: the service answers it */ }
      return proxy.fetch(new Request(req.url, { method: req.method, headers: req.headers, body }), info);
    }
    if (path === "/blank") return new Response("<!doctype html><title>blank</title>", { headers: HTML });
    if (path === "/sdk.iife.js" || path === "/sdk.js") {
      return new Response(path === "/sdk.js" ? esm : iife, {
        headers: { "content-type": "text/javascript" },
      });
    }
    if (path === "/esm") return new Response(esmPage(opts), { headers: HTML });
    const html = (t: string, b: string) => new Response(page(t, b, opts), { headers: HTML });
    if (path === "/pricing") return html("Pricing", pricing);
    if (path === "/favicon.ico") return new Response(null, { status: 404 });
    return html("Home", home);
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, proxied, stop: () => server.shutdown() };
}
