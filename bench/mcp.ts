/**
 * The cost of MCP over the read API: the same tool call made as MCP `tools/call` (revision 2026-07-28 client,
 * stateless, one POST per call) and as `POST /v1/read/<tool>`, against the real server on loopback.
 *   deno run -A bench/mcp.ts [--calls 300] [--events 20000]
 * Calls alternate between the two faces so drift hits both alike. Target (DESIGN.md): MCP at most 5 ms more
 * (median). Writes bench/results/mcp.json.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startServer } from "../tests/helpers/server.ts";
import { createTenant } from "../tests/helpers/tenant.ts";
import { siteLines } from "../lib/demo/site.ts";

const arg = (name: string, d: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : d;
};
const CALLS = arg("calls", 300);
const EVENTS = arg("events", 20_000);
const TARGET_MS = 5;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (n: number) => Math.round(n * 100) / 100;

const server = await startServer({ env: { READ_KEY_RATE_PER_MINUTE: "1000000" } });
const api = { request: (p: string, i?: RequestInit) => fetch(server.url + p, i) };
try {
  const t = await createTenant(api, server.adminToken, { plan: "enterprise" });
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      events: EVENTS,
      days: 30,
      seed: 3,
      end: Date.now(),
      host: t.domain,
    }),
  ];
  const imported = await fetch(`${server.url}/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  if (!imported.ok) throw new Error(`import failed: ${imported.status} ${await imported.text()}`);
  await imported.body?.cancel();

  const client = new Client({ name: "bench", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${t.readKey}` } },
    }),
  );
  const results: Record<string, unknown>[] = [];
  for (
    const [tool, input] of [["account_overview", {}], ["behavior_pages", { period: "last_7_days" }]] as const
  ) {
    const http: number[] = [];
    const mcp: number[] = [];
    const viaHttp = async () => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/v1/read/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      await res.json();
      if (!res.ok) throw new Error(`read API ${res.status}`);
      return performance.now() - t0;
    };
    const viaMcp = async () => {
      const t0 = performance.now();
      const r = await client.callTool({ name: tool, arguments: input });
      if (r.isError) throw new Error(`mcp: ${JSON.stringify(r.content)}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 20; i++) await viaHttp(), await viaMcp(); // warm both paths and the part cache
    for (let i = 0; i < CALLS; i++) {
      if (i % 2) {
        http.push(await viaHttp());
        mcp.push(await viaMcp());
      } else {
        mcp.push(await viaMcp());
        http.push(await viaHttp());
      }
    }
    const extra = pct(mcp, 50) - pct(http, 50);
    const row = {
      tool,
      calls: CALLS,
      read_api_ms: { p50: ms(pct(http, 50)), p95: ms(pct(http, 95)) },
      mcp_ms: { p50: ms(pct(mcp, 50)), p95: ms(pct(mcp, 95)) },
      mcp_extra_p50_ms: ms(extra),
      target_extra_ms: TARGET_MS,
      ok: extra <= TARGET_MS,
    };
    results.push(row);
    console.log(
      `${tool}: read API p50 ${row.read_api_ms.p50} ms, MCP tools/call p50 ${row.mcp_ms.p50} ms, ` +
        `extra ${row.mcp_extra_p50_ms} ms (target ≤ ${TARGET_MS} ms) ${row.ok ? "OK" : "MISSED"}`,
    );
  }
  await client.close();
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(
    new URL("./results/mcp.json", import.meta.url),
    JSON.stringify({ measured_at: new Date().toISOString(), events: EVENTS, results }, null, 2) + "\n",
  );
} finally {
  await server.stop();
}
