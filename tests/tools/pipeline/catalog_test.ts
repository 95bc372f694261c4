/** The tool lists the pipeline is handed (tools/registry.ts): every tool once, and those an insight may ask. */
import assert from "node:assert/strict";
import { INSIGHT_TOOLS, TOOLS } from "../../../tools/registry.ts";
import { checkInsightInput, insightTools } from "../../../pipeline/saved_insights.ts";

Deno.test("catalog: insights may ask the behavior and feedback questions, declared, never the saved items or the account", () => {
  assert.equal(new Set(TOOLS.map((t) => t.name)).size, TOOLS.length, "every tool once");
  for (const t of INSIGHT_TOOLS) assert.ok(TOOLS.includes(t), `${t.name} is a tool`);
  const names = INSIGHT_TOOLS.map((t) => t.name);
  for (const no of ["behavior_saved", "account_overview", "reports_list", "report_get"]) {
    assert.ok(!names.includes(no), no);
  }
  assert.deepEqual(insightTools().map((t) => t.name), names);
  assert.throws(
    () => checkInsightInput("behavior_saved", {}),
    /no read tool "behavior_saved" an insight can ask/,
  );
  assert.deepEqual(checkInsightInput("behavior_pages", { period: "last_7_days" }), { period: "last_7_days" });
});
