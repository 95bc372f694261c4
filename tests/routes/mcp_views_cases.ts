/**
 * MCP Apps through the official MCP clients against a demo start: the server announces the extension, the
 * picture tools point at ui:// views that resources/read serves as self-contained HTML, tools/list reads
 * for people (titles, icons, a ttl, portable schemas), and a client that does not announce the extension
 * (the 2025 SDK client) gets the same complete text answers.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../../app.ts";
import { demoSite } from "../helpers/demo_site.ts";
import { portabilityProblems } from "../../lib/answers/portable_schema.ts";
import { UI_EXTENSION, VIEW_MAX_BYTES, VIEW_MIME, VIEW_TOOLS, viewUri } from "../../views/catalog.ts";
import { buildViews } from "../../views/build.ts";

type AppLike = ReturnType<typeof createApp>;
const fetchVia = (app: AppLike) => (url: string | URL | Request, init?: RequestInit) =>
  Promise.resolve(app.fetch(new Request(url, init)));

async function demo() {
  await buildViews();
  const { deps, app, tenant } = await demoSite(2_000);
  return { deps, app, key: tenant.readKey, domain: tenant.domain };
}

Deno.test("mcp views: announced extension, ui:// views, people's titles, portable schemas", async () => {
  const { deps, app, key, domain } = await demo();
  const client = new Client({ name: "host-with-apps", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } },
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: fetchVia(app),
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
    assert.ok(caps.extensions?.[UI_EXTENSION], "the server announces MCP Apps");
    const listed = await client.listTools() as { tools: Record<string, unknown>[]; ttlMs?: number };
    assert.ok((listed.ttlMs ?? 0) >= 600_000, `tool list ttl ${listed.ttlMs}`);
    for (const t of listed.tools) {
      const name = String(t.name);
      assert.notEqual(t.title, name.replaceAll("_", " "), `${name}: a title for people`);
      assert.ok(Array.isArray(t.icons) && t.icons.length, `${name}: an icon`);
      assert.deepEqual(portabilityProblems(t.outputSchema), [], `${name}: portable output schema`);
      assert.deepEqual(portabilityProblems(t.inputSchema), [], `${name}: portable input schema`);
      const ui = (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui;
      if ((VIEW_TOOLS as readonly string[]).includes(name)) assert.equal(ui?.resourceUri, viewUri(name));
      else assert.equal(ui, undefined, `${name} has no view`);
    }
    for (const tool of VIEW_TOOLS) {
      const r = await client.readResource({ uri: viewUri(tool) });
      const c = r.contents[0] as { mimeType?: string; text?: string };
      assert.equal(c.mimeType, VIEW_MIME);
      const html = c.text ?? "";
      assert.match(html, /^<!DOCTYPE html>/);
      assert.ok(new TextEncoder().encode(html).length <= VIEW_MAX_BYTES, `${tool} size`);
      assert.doesNotMatch(html, /\b(src|href)=["']?(https?:)?\/\//i, `${tool} loads nothing from outside`);
      assert.doesNotMatch(html, /\beval\(|new Function\(/, `${tool} needs no eval`);
    }
    // the answer: structured for the view (validated by the client against the output schema), text complete
    const explain = await client.callTool({
      name: "behavior_explain_change",
      arguments: { touchpoint: domain, period: "last_7_days" },
    });
    const text = (explain.content as { text: string }[])[0].text;
    const drivers = (explain.structuredContent as { drivers: { name: string; dimension: string }[] }).drivers;
    assert.ok(drivers.length > 0);
    for (const d of drivers) {
      assert.ok(text.includes(`${d.dimension} ${d.name}:`), `${d.dimension} ${d.name} in text`);
    }
    const overview = await client.callTool({ name: "account_overview", arguments: {} });
    assert.doesNotMatch((overview.content as { text: string }[])[0].text, /no crawler hits yet/);
  } finally {
    await client.close();
    deps.kv.close();
  }
});

Deno.test("mcp views: a host on the 2025 handshake that announces the extension finds the same views", async () => {
  const { deps, app, key } = await demo();
  const client = new Client({ name: "host-2025", version: "1.0.0" }, {
    versionNegotiation: { mode: "legacy" },
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME] } } },
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: fetchVia(app),
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    assert.match(client.getNegotiatedProtocolVersion() ?? "", /^2025-/, "a 2025 revision");
    const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
    assert.ok(caps.extensions?.[UI_EXTENSION], "the server announces MCP Apps on the 2025 handshake too");
    const { tools } = await client.listTools();
    for (const tool of VIEW_TOOLS) {
      const t = tools.find((x) => x.name === tool);
      assert.equal((t?._meta as { ui?: { resourceUri?: string } })?.ui?.resourceUri, viewUri(tool));
      const r = await client.readResource({ uri: viewUri(tool) });
      assert.match((r.contents[0] as { text?: string }).text ?? "", /^<!DOCTYPE html>/);
    }
  } finally {
    await client.close();
    deps.kv.close();
  }
});

Deno.test("mcp views: a 2025 client without the extension gets complete text answers", async () => {
  const { deps, app, key, domain } = await demo();
  const client = new V1Client({ name: "text-only", version: "1.0.0" });
  try {
    await client.connect(
      new V1Transport(new URL("http://read.test/mcp"), {
        fetch: fetchVia(app),
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const r = await client.callTool({
      name: "behavior_crawl_coverage",
      arguments: { touchpoint: domain, period: "last_28_days" },
    });
    const text = (r.content as { text: string }[])[0].text;
    assert.match(text, /^crawl to referral:/m);
    assert.match(text, /^ {2}vendors \(\d+ of \d+\):$/m, "vendors as a list");
    assert.match(text, /^ {2}- vendor OpenAI: /m);
    const funnel = await client.callTool({
      name: "behavior_funnel",
      arguments: { touchpoint: domain, period: "last_28_days", steps: [{ page: "/" }, { page: "/pricing" }] },
    });
    assert.match(
      (funnel.content as { text: string }[])[0].text,
      /^- step 2 \/pricing: visitors \d+, conversion from first [\d.]+%/m,
    );
  } finally {
    await client.close();
    deps.kv.close();
  }
});
