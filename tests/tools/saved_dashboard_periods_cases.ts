/**
 * behavior_saved dashboards whose insights each run over their own period: the answer's scope claims no one
 * period for all of them, and each insight says the period of its figures.
 */
import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { renderAnswer } from "../../lib/answers/render.ts";
import { TOOLS } from "../../tools/registry.ts";
import { harness } from "./harness.ts";
import { saveItem } from "../helpers/saved.ts";

const output = TOOLS.find((t) => t.name === "behavior_saved")!.output;

Deno.test("behavior_saved: a dashboard of insights with their own periods states each one's, and no one period for all", async () => {
  const h = await harness({ visitors: 60 });
  try {
    const week = await saveItem(h.deps, h.t.org, h.t.touchpoint, "insight", {
      name: "Top pages",
      tool: "behavior_pages",
      input: { period: "last_7_days" },
    });
    const range = await saveItem(h.deps, h.t.org, h.t.touchpoint, "insight", {
      name: "Visits 1-10 Nov",
      tool: "behavior_overview",
      input: { period: "2026-11-01..2026-11-10" },
    });
    await saveItem(h.deps, h.t.org, h.t.touchpoint, "dashboard", {
      name: "Weekly look",
      insights: [week.id, range.id],
    });
    const dash = await h.ask("behavior_saved", { action: "dashboard", name: "Weekly look" });
    assert.deepEqual(checkAnswer(dash, { identifiers: h.site.identifiers, output }), []);
    // the insights ran over different periods: the scope names none of them (it said last_28_days before)
    assert.equal(dash.scope.period, null, JSON.stringify(dash.scope.period));
    const [pages, visits] = dash.dashboard.insights;
    const direct = await h.ask("behavior_pages", { period: "last_7_days" });
    assert.equal(pages.period.name, "last_7_days");
    assert.equal(pages.period.from_date, direct.scope.period.from_date);
    assert.equal(pages.period.to_date, direct.scope.period.to_date);
    assert.equal(visits.period.name, "2026-11-01..2026-11-10");
    assert.deepEqual([visits.period.from_date, visits.period.to_date], ["2026-11-01", "2026-11-10"]);
    assert.deepEqual([visits.period.previous_from_date, visits.period.previous_to_date], [
      "2026-10-22",
      "2026-10-31",
    ]);
    // the text MCP carries: no period on the scope line, each insight's beside its figures
    const text = renderAnswer("behavior_saved", dash);
    assert.doesNotMatch(text.split("\n")[1], /last_28_days|last_7_days/, text);
    assert.match(text, /- Top pages: .*period last_7_days: from date \d{4}-\d\d-\d\d, to date /, text);

    // asked over one period, every insight runs over it: the scope says so, truly
    const asked = await h.ask("behavior_saved", {
      action: "dashboard",
      name: "Weekly look",
      period: "last_7_days",
    });
    assert.equal(asked.scope.period.name, "last_7_days");
    for (const i of asked.dashboard.insights) assert.equal(i.period.name, "last_7_days");
    assert.deepEqual(checkAnswer(asked, { identifiers: h.site.identifiers, output }), []);

    // every insight of the same period: that period is the scope's
    await saveItem(h.deps, h.t.org, h.t.touchpoint, "dashboard", { name: "Week only", insights: [week.id] });
    const one = await h.ask("behavior_saved", { action: "dashboard", name: "Week only" });
    assert.equal(one.scope.period.name, "last_7_days");
    assert.deepEqual(one.scope.period, direct.scope.period);
  } finally {
    h.close();
  }
});
