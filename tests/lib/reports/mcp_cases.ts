/** reports_list and report_get through an MCP client give what the HTTP read API gives; the prompt uses them. */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { plantedWorld } from "./planted.ts";
import { generateDueReports } from "../../../pipeline/reports_generate.ts";
import { checkAnswer } from "../../../lib/answers/check.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("reports over MCP: the same answers as over HTTP, and the weekly-report prompt asks report_get", async () => {
  const w = await plantedWorld(true);
  assert.equal(await generateDueReports(w.app.ctx), 4);
  const client = new Client({ name: "reports-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(w.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${w.t.readKey}` } },
    }),
  );
  const http = async (tool: string, input: Json) =>
    await (await w.app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    })).json();
  const strip = (a: Json) => ({ ...a, notices: undefined });
  const list = await client.callTool({ name: "reports_list", arguments: { kind: "weekly" } });
  assert.ok(!list.isError, JSON.stringify(list.content));
  const listed = list.structuredContent as Json;
  assert.equal(listed.reports_total, 2);
  assert.deepEqual(strip(listed), strip(await http("reports_list", { kind: "weekly" })));
  for (const r of listed.reports) {
    const got = await client.callTool({ name: "report_get", arguments: { id: r.id } });
    assert.ok(!got.isError);
    const answer = got.structuredContent as Json;
    assert.equal(answer.report.headline, r.headline);
    assert.deepEqual(strip(answer), strip(await http("report_get", { id: r.id })));
    assert.deepEqual(checkAnswer(answer, { identifiers: w.identifiers }), []);
    const text = (got.content as { text: string }[])[0].text;
    assert.match(text, /^report_get\nScope: /);
  }
  const prompt = await client.getPrompt({ name: "weekly_report", arguments: { touchpoint: "Acme site" } });
  assert.match((prompt.messages[0].content as { text: string }).text, /report_get with kind weekly/);
  await client.close();
  w.close();
});
