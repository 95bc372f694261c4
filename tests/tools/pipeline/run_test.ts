/** The steps every tool call takes (pipeline/run.ts), seen through the HTTP read API and MCP. */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { readUsage } from "../../../lib/usage/allowance.ts";
import { harness } from "../harness.ts";

Deno.test("tool pipeline: refusals come in step order: tool, then rate, then allowance, then input", async () => {
  const h = await harness({
    visitors: 10,
    config: { readKeyRatePerMinute: 2, plans: { professional: { allowances: { api_requests: 1 } } } },
  });
  assert.equal((await h.askRaw("account_overview")).status, 200);
  const used = await h.askRaw("account_overview", { colour: "red" });
  assert.equal(used.status, 402, "the allowance is checked before the input");
  await used.body?.cancel();
  const unknown = await h.askRaw("behavior_horoscope");
  assert.equal(unknown.status, 404, "an unknown tool spends no rate");
  await unknown.body?.cancel();
  const limited = await h.askRaw("account_overview");
  assert.equal(limited.status, 429, "the rate is taken before the allowance is read");
  await limited.body?.cancel();
  h.close();
});

Deno.test("tool pipeline: a call counts one request of its face and the items it showed; a refused call nothing", async () => {
  const h = await harness({ config: { plans: { professional: { allowances: { individual_items: 7 } } } } });
  const org = (await h.ask("account_overview")).organization;
  const usage = () =>
    readUsage(h.deps.kv, { id: org.id, timezone: org.timezone } as never, h.deps.clock.now());
  assert.deepEqual(await usage(), { api_requests: 1, assistant_requests: 0, individual_items: 0 });

  assert.equal((await h.ask("behavior_sessions", { limit: 5 })).sessions.length, 5);
  assert.deepEqual(await usage(), { api_requests: 2, assistant_requests: 0, individual_items: 5 });

  const bad = await h.askRaw("behavior_sessions", { limit: 500 });
  assert.equal(bad.status, 422);
  await bad.body?.cancel();
  assert.deepEqual(await usage(), { api_requests: 2, assistant_requests: 0, individual_items: 5 });

  const client = new Client({ name: "pipeline", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  const viaMcp = await client.callTool({ name: "behavior_sessions", arguments: { limit: 5 } });
  const shown = viaMcp.structuredContent as { sessions: unknown[]; notices: string[] };
  assert.equal(shown.sessions.length, 2, "2 of the month's 7 items were left");
  assert.ok(shown.notices.some((n) => /100% of this month's individual items used \(7 of 7\)/.test(n)));
  assert.deepEqual(await usage(), { api_requests: 2, assistant_requests: 1, individual_items: 7 });
  await client.close();
  h.close();
});
