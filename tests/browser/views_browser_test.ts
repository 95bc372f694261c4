/// <reference lib="dom" />
/**
 * The MCP Apps views in Chromium, loaded the way a host loads them: the view's HTML (read over MCP with
 * resources/read) in an iframe sandboxed without same-origin, under the extension's default CSP; the host
 * page answers ui/initialize with a host context, then sends tool-input and tool-result over postMessage;
 * the view's own tools/call requests go through the host to the real MCP server. Each view must draw the
 * figures of the real answer it was given. Screenshots at two widths (light and dark) land in
 * docs/assistants/ for docs/assistants.md.
 */
import assert from "node:assert/strict";
import type { Browser, Frame, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { buildViews } from "../../views/build.ts";
import { UI_EXTENSION, VIEW_MIME, VIEW_TOOLS, viewUri } from "../../views/catalog.ts";
import { demoSite } from "../helpers/demo_site.ts";
import { launchChromium } from "./browser.ts";

/** The CSP a host must apply when a view declares no outside domains (the extension's default). */
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; " +
  "img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

/** A host page: the sandboxed frame and the host's half of the protocol; results come from the test. */
const HOST = `<!DOCTYPE html><html><body style="margin:0">
<iframe id="view" sandbox="allow-scripts" style="border:0;width:100%;height:300px"></iframe>
<script>
const frame = document.getElementById("view");
window.hostLog = [];
window.startView = (src, theme, width, protocolVersion) => new Promise((ready) => {
  frame.style.width = width + "px";
  frame.src = src;
  window.onmessage = async (e) => {
    if (e.source !== frame.contentWindow) return;
    const m = e.data;
    window.hostLog.push(m.method || "response");
    if (m.method === undefined) (window.replies ||= []).push(m);
    const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: "2.0", id: m.id, result }, "*");
    if (m.method === "ui/initialize") {
      reply({ protocolVersion, hostInfo: { name: "test-host", version: "1" }, hostCapabilities: { serverTools: {} },
        hostContext: { theme, displayMode: "inline", containerDimensions: { width, maxHeight: 4000 } } });
    } else if (m.method === "ui/notifications/initialized") ready();
    else if (m.method === "ui/notifications/size-changed") frame.style.height = m.params.height + "px";
    else if (m.method === "tools/call") reply(await window.hostCallTool(m.params.name, m.params.arguments));
  };
});
window.send = (method, params) => frame.contentWindow.postMessage({ jsonrpc: "2.0", method, params }, "*");
</script></body></html>`;

type Obj = Record<string, unknown>;

const INPUTS = (domain: string): Record<string, Obj> => ({
  behavior_overview: { touchpoint: domain, period: "last_7_days" },
  behavior_trends: { touchpoint: domain, period: "last_28_days" },
  behavior_pages: { touchpoint: domain, period: "last_28_days" },
  behavior_sources: { touchpoint: domain, period: "last_28_days" },
  behavior_funnel: {
    touchpoint: domain,
    period: "last_28_days",
    steps: [{ page: "/" }, { page: "/pricing" }, { page: "/signup" }],
  },
  behavior_retention: { touchpoint: domain, period: "last_28_days" },
  behavior_paths: { touchpoint: domain, period: "last_28_days", page: "/pricing" },
  behavior_performance: { touchpoint: domain, period: "last_28_days" },
  behavior_crawl_coverage: { touchpoint: domain, period: "last_28_days" },
  behavior_crawler_access: { touchpoint: domain, period: "last_28_days" },
  behavior_explain_change: { touchpoint: domain, period: "last_7_days" },
  feedback_summary: { period: "last_90_days" },
  feedback_themes: { period: "last_90_days" },
  report_get: {},
});

/** The figures drawn: every mark's label and value. */
async function marks(frame: Frame, selector = ".mark") {
  return await frame.$$eval(
    selector,
    (els) =>
      els.map((e) => [e.getAttribute("data-label") ?? "", Number(e.getAttribute("data-value"))] as const),
  );
}

const list = (v: unknown) => (Array.isArray(v) ? v as Obj[] : []);

/** What each view must show of its answer (the figures a person reads). */
async function expectDrawn(tool: string, frame: Frame, a: Obj) {
  // the notices' times read local and compact in the answer's time zone, as the web app shows them
  const zone = String((a.scope as Obj | undefined)?.timezone ?? "UTC");
  const notes = await frame.$$eval(".notes li", (els) => els.map((e) => e.textContent ?? ""));
  assert.ok(notes.some((n) => n.startsWith("data fresh to")), `${tool}: ${notes.join(" | ")}`);
  for (const n of notes) {
    assert.doesNotMatch(n, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, `${tool}: ${n}`);
    if (n.startsWith("data fresh to")) {
      assert.match(n, new RegExp(`^data fresh to \\d{1,2}\\s\\w{3},\\s\\d{2}:\\d{2} \\(${zone}\\)`), n);
    }
  }
  const bars = await marks(frame, "svg[data-chart=bars] .mark");
  const has = (label: string, value: number) =>
    assert.ok(bars.some(([l, v]) => l === label && v === value), `${tool}: ${label} ${value} drawn`);
  switch (tool) {
    case "behavior_overview": {
      const tile = await frame.$eval(".tile[data-label=visitors]", (e) => e.getAttribute("data-value"));
      assert.equal(Number(tile), (a.visitors as Obj).value);
      // seconds read as a duration under the metric's name, as the web app shows them
      const duration = await frame.$eval(
        ".tile[data-label=session_duration_s]",
        (e) => [e.querySelector(".name")!.textContent, e.querySelector(".figure")!.textContent],
      );
      assert.equal(duration[0], "Session duration");
      assert.match(duration[1] ?? "", /^(\d+\smin(\s\d+\ss)?|[\d.]+\ss)$/, String(duration[1]));
      for (const p of list(a.top_pages)) has(String(p.name), p.visitors as number);
      break;
    }
    case "behavior_trends": {
      const dots = await marks(frame, "[data-series='this period'] .dot");
      assert.deepEqual(dots, list(a.series).map((p) => [p.bucket, p[a.metric as string]]));
      // the period before, asked by the view through the host's tools/call
      await frame.waitForSelector("[data-series='period before'] .dot");
      break;
    }
    case "behavior_pages": {
      for (const p of list(a.pages)) has(String(p.page), p.pageviews as number);
      // what a screen reader is given: the chart as a figure, each bar's page and figure inside it
      const tree = await frame.locator("svg[data-chart=bars]").first().ariaSnapshot();
      const top = list(a.pages)[0];
      assert.match(tree, /figure "Pages by/);
      assert.ok(tree.includes(`${top.page}`) && tree.includes(`${top.pageviews}`), tree.slice(0, 400));
      break;
    }
    case "behavior_sources":
      for (const c of list(a.channels)) has(String(c.name), c.visitors as number);
      break;
    case "behavior_funnel": {
      for (const s of list(a.steps)) has(`${s.step}. ${s.name}`, s.visitors as number);
      const overall = await frame.$eval("[data-label=overall_conversion]", (e) => e.textContent ?? "");
      assert.match(overall, new RegExp(`${Math.round((a.overall_conversion as number) * 1000) / 10}%`));
      break;
    }
    case "behavior_retention": {
      const cells = await marks(frame, "svg[data-chart=grid] .mark");
      const first = list(a.cohorts)[0];
      assert.equal(cells[0][1], (first.rates as number[])[0]);
      break;
    }
    case "behavior_crawl_coverage":
      for (const c of list(a.crawlers)) has(String(c.crawler), c.pages_read as number);
      assert.ok((await marks(frame, "svg[data-chart=grid] .mark")).length > 0, "crawler-by-page matrix");
      break;
    case "behavior_performance": {
      const b = await marks(frame, "svg[data-chart=bands] .mark");
      const vitals = (a.overall as Obj).vitals as Record<string, Obj>;
      assert.deepEqual(b.map(([l]) => l), Object.keys(vitals).filter((k) => vitals[k]));
      for (const [l, v] of b) assert.equal(v, vitals[l].p75);
      break;
    }
    case "behavior_crawler_access": {
      // paths disallowed once robots.txt was read; before that (null) the requests
      const known = list(a.crawlers).some((c) => typeof c.paths_disallowed === "number");
      for (const c of list(a.crawlers)) {
        has(String(c.crawler), (known ? c.paths_disallowed : c.requests) as number);
      }
      break;
    }
    case "behavior_explain_change":
      for (const d of list(a.drivers)) has(`${d.dimension} ${d.name}`, d.contribution as number);
      break;
    case "feedback_themes":
      for (const t of list(list(a.apps)[0]?.themes)) has(String(t.label), t.share as number);
      break;
    case "report_get": {
      const r = a.report as Obj;
      assert.equal(await frame.$eval("[data-label=headline]", (e) => e.textContent), r.headline);
      // a change is read once, signed with a real minus sign, never as a fraction ("change -0.37")
      const tiles = await frame.$$eval(".tile", (els) => els.map((e) => e.textContent ?? ""));
      for (const t of tiles) assert.doesNotMatch(t, /-0\.\d|^change/i, t);
      // how to see each finding: in words, each question once (not "behavior_pages, behavior_pages")
      const seeIt = await frame.$$eval("section .scope", (els) => els.map((e) => e.textContent ?? ""));
      assert.ok(seeIt.length > 0, "findings say how to see them");
      for (const line of seeIt) {
        assert.doesNotMatch(line, /behavior_|feedback_/, line);
        const asked = line.replace(/^See it: /, "").split("; ");
        assert.equal(new Set(asked).size, asked.length, line);
      }
      break;
    }
    case "behavior_paths": {
      for (const p of list(a.paths)) has((p.steps as string[]).join(" → "), p.share as number);
      break;
    }
    default: {
      const all = await frame.$$("svg, .tile, .lead");
      assert.ok(all.length > 0, `${tool}: something drawn`);
    }
  }
}

Deno.test({
  name: "views in a sandboxed frame draw the real answers; handshake 2026-01-26 and a 2025 draft host",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await buildViews();
    const { deps, app, tenant } = await demoSite(3_000, { reports: true }); // reports as the dev start makes them
    const mcp = new Client({ name: "test-host", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } },
    });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: (u: string | URL | Request, init?: RequestInit) =>
          Promise.resolve(app.fetch(new Request(u, init))),
        requestInit: { headers: { authorization: `Bearer ${tenant.readKey}` } },
      }),
    );
    const html = new Map<string, string>();
    for (const tool of VIEW_TOOLS) {
      const r = await mcp.readResource({ uri: viewUri(tool) });
      html.set(tool, (r.contents[0] as { text: string }).text);
    }
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      if (path === "/host") return new Response(HOST, { headers: { "content-type": "text/html" } });
      const view = html.get(path.slice("/view/".length));
      if (!view) return new Response("not found", { status: 404 });
      return new Response(view, {
        headers: { "content-type": "text/html", "content-security-policy": DEFAULT_CSP },
      });
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    let browser: Browser | undefined;
    const inputs = INPUTS(tenant.domain);
    const shots = new URL("../../docs/assistants/", import.meta.url);
    await Deno.mkdir(shots, { recursive: true });
    try {
      browser = await launchChromium();
      const page: Page = await browser.newPage({ viewport: { width: 800, height: 4200 } });
      const failures: string[] = [];
      page.on("console", (m) => m.type() === "error" && failures.push(m.text()));
      page.on("pageerror", (e) => failures.push(e.message));
      await page.exposeFunction("hostCallTool", async (name: string, args: Obj) => {
        return await mcp.callTool({ name, arguments: args });
      });
      await page.goto(`${base}/host`);
      const runs = [
        { width: 420, theme: "light", version: "2026-01-26" },
        { width: 760, theme: "dark", version: "2025-11-21" },
      ];
      for (const tool of VIEW_TOOLS) {
        let args = inputs[tool];
        if (tool === "report_get") {
          const reports = await mcp.callTool({ name: "reports_list", arguments: {} });
          const all = list((reports.structuredContent as Obj).reports);
          assert.ok(all[0], "the demo has a report");
          args = { id: all[0].id };
          // a report with findings, so their figures and how to see them are drawn
          for (const r of all) {
            const got = await mcp.callTool({ name: tool, arguments: { id: r.id } });
            const report = (got.structuredContent as Obj).report as Obj | null;
            if (list(report?.findings).some((f) => list(f.reproduce).length)) {
              args = { id: r.id };
              break;
            }
          }
        }
        const result = await mcp.callTool({ name: tool, arguments: args });
        assert.ok(!result.isError, `${tool}: ${JSON.stringify(result.content).slice(0, 300)}`);
        for (const run of runs) {
          await page.evaluate(
            ([src, theme, width, version]) =>
              (globalThis as unknown as { startView: (...a: unknown[]) => Promise<void> }).startView(
                src,
                theme,
                width,
                version,
              ),
            [`${base}/view/${tool}`, run.theme, run.width, run.version] as const,
          );
          await page.evaluate(([a, r]) => {
            const send = (globalThis as unknown as { send: (m: string, p: unknown) => void }).send;
            send("ui/notifications/tool-input", { arguments: a });
            send("ui/notifications/tool-result", r);
          }, [args, result] as const);
          const frame = page.frame({ url: `${base}/view/${tool}` })!;
          await frame.waitForSelector(`#app[data-rendered=${tool}]`);
          const sandbox = await frame.evaluate(() => {
            try {
              return `${self.origin} storage ${typeof localStorage.length}`;
            } catch {
              return `${self.origin} no storage`;
            }
          });
          assert.equal(sandbox, "null no storage", `${tool} runs without same-origin`);
          await expectDrawn(tool, frame, result.structuredContent as Obj);
          // the picture once the host has sized the frame to the view's last size-changed
          await frame.evaluate(() =>
            new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
          );
          await page.waitForTimeout(150);
          const box = (await (await page.$("#view"))!.boundingBox())!;
          await page.screenshot({
            path: new URL(`${tool}-${run.width}.png`, shots).pathname,
            clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 640) },
          });
        }
      }
      // a question changed in the view (period) is asked again through the host and drawn
      await page.evaluate(
        ([src]) =>
          (globalThis as unknown as { startView: (...a: unknown[]) => Promise<void> }).startView(
            src,
            "light",
            600,
            "2026-01-26",
          ),
        [`${base}/view/behavior_pages`] as const,
      );
      const pagesArgs = inputs.behavior_pages;
      const first = await mcp.callTool({ name: "behavior_pages", arguments: pagesArgs });
      await page.evaluate(([a, r]) => {
        const send = (globalThis as unknown as { send: (m: string, p: unknown) => void }).send;
        send("ui/notifications/tool-input", { arguments: a });
        send("ui/notifications/tool-result", r);
      }, [pagesArgs, first] as const);
      const frame = page.frame({ url: `${base}/view/behavior_pages` })!;
      await frame.waitForSelector("#app[data-rendered=behavior_pages]");
      await frame.selectOption("select", "last_7_days");
      const week = await mcp.callTool({
        name: "behavior_pages",
        arguments: { ...pagesArgs, period: "last_7_days" },
      });
      const want = list((week.structuredContent as Obj).pages).map((p) => [p.page, p.pageviews]);
      await frame.waitForFunction(
        (n) => document.querySelector("select")?.value === "last_7_days" && n > 0,
        1,
      );
      await frame.waitForFunction(
        (w) => {
          const got = [...document.querySelectorAll("svg[data-chart=bars] .mark")].map((e) => [
            e.getAttribute("data-label"),
            Number(e.getAttribute("data-value")),
          ]);
          return JSON.stringify(got) === JSON.stringify(w);
        },
        want,
      );
      // the split and the page, changed in the view, are asked again through the host too
      const show = async (tool: string, args: Obj, width = 600) => {
        await page.evaluate(
          ([src, width]) =>
            (globalThis as unknown as { startView: (...a: unknown[]) => Promise<void> }).startView(
              src,
              "light",
              width,
              "2026-01-26",
            ),
          [`${base}/view/${tool}`, width] as const,
        );
        const r = await mcp.callTool({ name: tool, arguments: args });
        await page.evaluate(([a, r]) => {
          const send = (globalThis as unknown as { send: (m: string, p: unknown) => void }).send;
          send("ui/notifications/tool-input", { arguments: a });
          send("ui/notifications/tool-result", r);
        }, [args, r] as const);
        const f = page.frame({ url: `${base}/view/${tool}` })!;
        await f.waitForSelector(`#app[data-rendered=${tool}]`);
        return f;
      };
      // at 390 px (a phone), what a person reads of each path tells the rows apart, and fits the frame
      const narrow = await show("behavior_paths", inputs.behavior_paths, 390);
      const read = await narrow.$$eval("svg[aria-label=Paths] .mark", (els) =>
        els.map((g) => {
          const label = g.querySelector("text.label") as SVGTextElement;
          const svg = (g as SVGGElement).ownerSVGElement!.getBoundingClientRect();
          const box = label.getBoundingClientRect();
          return {
            text: label.textContent ?? "",
            inside: box.left >= svg.left - 1 && box.right <= svg.right + 1,
          };
        }));
      assert.ok(read.length > 3, "the demo has paths through /pricing");
      assert.equal(new Set(read.map((r) => r.text)).size, read.length, read.map((r) => r.text).join(" | "));
      for (const r of read) assert.ok(r.inside, `${r.text} fits the frame`);
      const trends = await show("behavior_trends", inputs.behavior_trends);
      await trends.selectOption("select[aria-label='split by']", "device");
      const split = await mcp.callTool({
        name: "behavior_trends",
        arguments: { ...inputs.behavior_trends, split_by: "device" },
      });
      const splits = list((split.structuredContent as Obj).splits);
      assert.ok(splits.length > 0, "the demo's trend splits by device");
      await trends.waitForFunction(
        (w) =>
          w.every(([label, value]) =>
            document.querySelector(`svg[data-chart=bars] .mark[data-label="${label}"][data-value="${value}"]`)
          ),
        splits.map((sp) => [String(sp.name), sp[String((split.structuredContent as Obj).metric)]]),
      );
      const overview = await show("behavior_overview", inputs.behavior_overview);
      const allPages = await overview.$eval(
        ".tile[data-label=visitors]",
        (e) => e.getAttribute("data-value"),
      );
      await overview.fill("input[aria-label=page]", "/pricing");
      await overview.click(".picker button");
      const onePage = await mcp.callTool({
        name: "behavior_overview",
        arguments: { ...inputs.behavior_overview, page: "/pricing" },
      });
      const visitors = ((onePage.structuredContent as Obj).visitors as Obj).value;
      assert.notEqual(String(visitors), allPages, "one page has fewer visitors than the site");
      await overview.waitForFunction(
        (v) => document.querySelector(".tile[data-label=visitors]")?.getAttribute("data-value") === String(v),
        visitors,
      );
      // a request the view does not know is answered (an error), so a host never waits on it
      await page.evaluate(() =>
        (document.getElementById("view") as HTMLIFrameElement).contentWindow!.postMessage(
          { jsonrpc: "2.0", id: 999, method: "ui/something-new", params: {} },
          "*",
        )
      );
      await page.waitForFunction(() =>
        ((globalThis as unknown as { replies?: { id: number; error?: { code: number } }[] }).replies ?? [])
          .some((r) => r.id === 999 && r.error?.code === -32601)
      );
      assert.deepEqual(failures.filter((f) => !/favicon/.test(f)), [], "no script or CSP errors");
    } finally {
      await browser?.close();
      await server.shutdown();
      await mcp.close();
      deps.kv.close();
    }
  },
});
