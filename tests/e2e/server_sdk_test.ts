/**
 * The server SDK in front of a real Hono app served by Deno.serve, reporting to the real service process:
 * crawlers are stored with the right counts, browsers, assets, API calls and probes never leave the app.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { startServer } from "../helpers/server.ts";
import { createTenant } from "../helpers/tenant.ts";
import { createCrawlReporter, honoCrawlReporter, type Logger } from "../../sdk/server/src/index.ts";

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const GPTBOT =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)";
const BINGBOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const PERPLEXITY =
  "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)";
const CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";
const SAFARI_IOS =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

interface StoredHitView {
  path: string;
  method: string;
  status: number | null;
  user_agent: string;
  host: string;
  site_file: string | null;
  crawler: string;
  ip?: unknown;
}

function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (m) => void lines.push(`warn ${m}`), error: (m) => void lines.push(`error ${m}`) };
}

/** A small site: HTML pages, crawler files, an asset, an API route and an HTML 404. */
function site(reporterMiddleware: ReturnType<typeof honoCrawlReporter>): Hono {
  const app = new Hono();
  app.use("*", reporterMiddleware);
  app.get("/", (c) => c.html("<h1>Acme</h1>"));
  app.get("/pricing", (c) => c.html("<h1>Pricing</h1>"));
  app.get("/robots.txt", (c) => c.text("User-agent: *\nAllow: /\n"));
  app.get("/app.js", (c) => c.body("console.log(1)", 200, { "content-type": "text/javascript" }));
  app.get("/api/items", (c) => c.json([]));
  app.post("/contact", (c) => c.html("<p>thanks</p>"));
  app.notFound((c) => c.html("<h1>Not found</h1>", 404));
  return app;
}

Deno.test("e2e server SDK: a Hono site reports crawler hits to the real service and they are stored with the right counts", async () => {
  const srv = await startServer();
  const logger = memoryLogger();
  let httpServer: Deno.HttpServer | null = null;
  try {
    const api = { request: (p: string, i?: RequestInit) => fetch(srv.url + p, i) };
    const tenant = await createTenant(api, srv.adminToken);
    // The development key accepts localhost, which is the host the site is reached by here.
    const live = createCrawlReporter({
      serverKey: tenant.devServerKey,
      baseUrl: srv.url,
      logger,
      flushIntervalMs: 60_000,
      queryAllowlist: ["page"],
    });
    const app = site(honoCrawlReporter(live));
    httpServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
    const origin = `http://localhost:${(httpServer.addr as Deno.NetAddr).port}`;
    const visit = async (path: string, ua: string | null, method = "GET") => {
      // Deno's fetch sends "Deno/x" unless told otherwise; an empty value stands for "no user agent".
      const headers = new Headers({ "user-agent": ua ?? "" });
      const res = await fetch(origin + path, { method, headers });
      await res.body?.cancel();
      return res.status;
    };

    // Crawler reads: 6 reported.
    assert.equal(await visit("/", GOOGLEBOT), 200);
    assert.equal(await visit("/pricing?page=2&email=jane@mail.test", GOOGLEBOT), 200);
    assert.equal(await visit("/robots.txt", GPTBOT), 200);
    assert.equal(await visit("/pricing", GPTBOT), 200);
    assert.equal(await visit("/pricing", BINGBOT, "HEAD"), 200);
    assert.equal(await visit("/missing-page", PERPLEXITY), 404);
    // Never reported: browsers, assets, API calls, non-GET, probes, no agent.
    await visit("/", CHROME);
    await visit("/pricing", SAFARI_IOS);
    await visit("/app.js", GOOGLEBOT);
    await visit("/api/items", GOOGLEBOT);
    await visit("/contact", GOOGLEBOT, "POST");
    await visit("/", "kube-probe/1.30");
    await visit("/", null);

    await live.shutdown();
    const stats = live.stats();
    assert.equal(stats.sent, 6, JSON.stringify(stats));
    assert.equal(stats.service.accepted, 6, JSON.stringify(stats.service));
    assert.equal(stats.queued, 0);
    assert.deepEqual(stats.skipped, {
      method: 1,
      path: 2,
      content_type: 0,
      no_user_agent: 1,
      health_probe: 1,
      browser: 2,
      should_report: 0,
    });

    const listed = await fetch(
      `${srv.url}/admin/v1/orgs/${tenant.org}/hits?limit=100&environment=development`,
      {
        headers: { authorization: `Bearer ${srv.adminToken}` },
      },
    );
    assert.equal(listed.status, 200);
    const { hits } = await listed.json() as { hits: StoredHitView[] };
    assert.equal(hits.length, 6);
    const byAgent = (ua: string) =>
      hits.filter((h) => h.user_agent === ua).map((h) => `${h.method} ${h.path} ${h.status}`);
    assert.deepEqual(byAgent(GOOGLEBOT).sort(), ["GET / 200", "GET /pricing?page=2 200"]);
    assert.deepEqual(byAgent(GPTBOT).sort(), ["GET /pricing 200", "GET /robots.txt 200"]);
    assert.deepEqual(byAgent(BINGBOT), ["HEAD /pricing 200"]);
    assert.deepEqual(byAgent(PERPLEXITY), ["GET /missing-page 404"]);
    assert.equal(hits.filter((h) => h.site_file === "robots.txt").length, 1);
    assert.ok(hits.every((h) => h.host === "localhost"));
    assert.ok(hits.every((h) => !("ip" in h)), "no address in an operator view");
    assert.equal(logger.lines.length, 0, logger.lines.join("\n"));

    // A production key only writes production: the same hits from localhost are refused as unknown_host,
    // and an unknown key stops the reporter with one clear message.
    const wrongEnv = createCrawlReporter({ serverKey: tenant.serverKey, baseUrl: srv.url, logger });
    const badKey = createCrawlReporter({
      serverKey: "svc_sk_prod_not_a_real_key_000",
      baseUrl: srv.url,
      logger,
    });
    const hit = () =>
      [{ method: "GET", url: "http://localhost/", headers: new Headers({ "user-agent": GOOGLEBOT }) }, {
        status: 200,
        contentType: "text/html",
      }] as const;
    wrongEnv.observe(...hit());
    badKey.observe(...hit());
    await Promise.all([wrongEnv.shutdown(), badKey.shutdown()]);
    assert.equal(wrongEnv.stats().service.rejected.unknown_host, 1);
    assert.equal(badKey.stats().stopped, true);
    assert.equal(badKey.stats().dropped.unauthorized, 1);
    assert.equal(logger.lines.filter((l) => l.startsWith("error") && l.includes("HTTP 401")).length, 1);
  } finally {
    await httpServer?.shutdown();
    await srv.stop();
  }
});
