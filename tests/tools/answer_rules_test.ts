/**
 * Every tool's answers, on a generated site, through every answer rule (lib/answers/check.ts), and the same
 * question through both faces: the MCP structured content equals the HTTP answer.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { TOOLS } from "../../tools/registry.ts";
import { harness } from "./harness.ts";

/** Questions per tool, chosen to reach small groups, filters, paging and text with contact details. */
export const QUESTIONS: Record<string, Record<string, unknown>[]> = {
  account_overview: [{}],
  behavior_overview: [{}, { period: "yesterday" }, { period: "last_90_days", page: "/pricing" }],
  behavior_trends: [
    { period: "last_7_days", split_by: "country" },
    { period: "last_28_days", event: "sign_up", property: "plan", property_value: "team", interval: "day" },
    { period: "last_28_days", event: "sign_up", split_by: "property", property: "note" },
    { period: "today", metric: "sessions" },
  ],
  behavior_funnel: [
    { steps: [{ page: "/" }, { page: "/pricing" }, { event: "sign_up" }], split_by: "country" },
    // a property condition on a small group
    {
      steps: [{ page: "/pricing" }, { event: "sign_up", property: "plan", value: "team" }],
      conversion_window: "7d",
    },
    { period: "yesterday", steps: [{ page: "/blog/*" }, { page: "/pricing" }], conversion_window: "30m" },
  ],
  behavior_explain_change: [
    {},
    { period: "last_7_days", metric: "conversion_rate", conversion_event: "sign_up" },
    { period: "yesterday", metric: "bounce_rate", dimensions: ["page", "device"], segments_per_dimension: 1 },
  ],
  behavior_pages: [{}, { period: "yesterday", sort_by: "engagement_time_s" }, { offset: 3, limit: 2 }],
  behavior_events: [{}, { search: "sign" }],
  behavior_event_properties: [{ event: "sign_up", period: "last_90_days", values_limit: 25 }, {
    event: "$autocapture",
  }],
  behavior_paths: [
    { page: "/pricing" },
    { event: "sign_up", direction: "before", depth: 5, include_events: true },
    { period: "last_90_days", page: "/*", depth: 5, include_events: true },
  ],
  behavior_sources: [{}, { conversion_event: "sign_up", period: "last_90_days", limit: 25 }],
  behavior_retention: [{}, { period: "last_7_days", cohort_event: "sign_up" }, {
    period: "last_90_days",
    interval: "month",
    return_event: "sign_up",
  }],
  behavior_sessions: [{ limit: 25 }, { page: "/pricing", period: "last_30_days" }],
  // nothing saved on this site: the list says so (tests/tools/saved_test.ts asks it with saved items)
  behavior_saved: [{}, { action: "list", kind: "cohort" }],
  behavior_features: [{}, { sort_by: "rage_clicks", page: "/pricing" }],
  behavior_performance: [{}, { by: "device", period: "last_7_days" }],
  behavior_crawl_coverage: [{}, { period: "last_7_days", stale_after_days: 3 }],
  behavior_crawler_access: [{}, { crawler: "GPTBot" }],
  // No apps on this site: the answers say so (tests/tools/feedback_test.ts asks them with reviews).
  feedback_summary: [{}],
  feedback_themes: [{ rising_first: true }],
  feedback_reviews: [{}],
  // No report is stored here: the answers say so (tests/lib/reports checks every generated report).
  reports_list: [{ touchpoint: "Acme site" }, {
    touchpoint: "Acme site",
    kind: "weekly",
    period: "last_90_days",
  }],
  report_get: [{ touchpoint: "Acme site" }],
};

Deno.test("answer rules: every answer of every tool keeps every rule on generated data", async () => {
  const h = await harness({ visitors: 90 });
  assert.deepEqual(Object.keys(QUESTIONS).sort(), TOOLS.map((t) => t.name).sort(), "every tool is asked");
  for (const [tool, inputs] of Object.entries(QUESTIONS)) {
    for (const input of inputs) {
      const answer = await h.ask(tool, input);
      // With its output schema: the answer holds only declared fields, and no schema declares an identifier.
      const output = TOOLS.find((t) => t.name === tool)!.output;
      assert.deepEqual(
        checkAnswer(answer, { identifiers: h.site.identifiers, output }),
        [],
        `${tool} ${JSON.stringify(input)}`,
      );
      assert.equal(answer.scope.environment, "production");
      assert.equal(answer.scope.timezone, "UTC");
      // Review answers are about apps, not the website: their scope names an app touchpoint or none.
      // The list of saved items names no one website (items of every one are listed).
      if (tool !== "account_overview" && !tool.startsWith("feedback_") && tool !== "behavior_saved") {
        assert.equal(answer.scope.touchpoint.id, h.t.touchpoint);
      }
      // Emails in quoted text never come out unmasked.
      assert.ok(!JSON.stringify(answer).includes("@acme.test"), tool);
    }
  }
  const log = h.deps.log.lines.join("\n");
  for (const id of h.site.identifiers.slice(0, 50)) {
    assert.ok(!log.includes(id), "no identifier in a log line");
  }
  h.close();
});

Deno.test("answer rules: the same question through MCP and HTTP gives the same JSON", async () => {
  const h = await harness();
  const client = new Client({ name: "faces", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  for (const [tool, inputs] of Object.entries(QUESTIONS)) {
    for (const input of inputs) {
      const viaMcp = await client.callTool({ name: tool, arguments: input });
      assert.ok(!viaMcp.isError, `${tool}: ${JSON.stringify(viaMcp.content)}`);
      const viaHttp = await h.ask(tool, input);
      // account_overview reports this month's usage, which the two calls themselves move: compare the rest.
      const same = (a: Record<string, unknown>) => tool === "account_overview" ? { ...a, plan: null } : a;
      assert.deepEqual(
        same(viaMcp.structuredContent as Record<string, unknown>),
        same(viaHttp),
        `${tool} ${JSON.stringify(input)}`,
      );
    }
  }
  await client.close();
  h.close();
});
