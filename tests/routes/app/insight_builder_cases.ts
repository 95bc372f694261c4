/**
 * The insight builder speaks to people: a funnel without its steps asks for them (it showed the tool's
 * "invalid input for behavior_funnel: steps: … not 0"), a refusal names the form's fields, not the API's
 * backticked inputs, the empty steps show a path through a site as examples, and "Show result" needs no name.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";

Deno.test("insight builder: a funnel asks for its steps, refusals name the form's fields, examples differ", async () => {
  const w = await peopleWorld();
  try {
    const mia = await w.join("mia@example.com", "member");
    const insights = orgUrl(w.org, "insights");
    const funnel = await mia.open(`${insights}/new?tool=behavior_funnel`);
    assert.equal(funnel.status, 200);
    assert.match(funnel.html, /Add two steps or more to see the funnel\./);
    assert.doesNotMatch(funnel.html, /invalid input for|Not yet/);
    const examples = [...funnel.html.matchAll(/name="step_value_\d+"[^>]*placeholder="([^"]+)"/g)].map((m) =>
      m[1]
    );
    assert.ok(examples.length >= 2 && new Set(examples).size === examples.length, examples.join(", "));
    assert.match(funnel.html, /value="preview"[^>]*formnovalidate/);

    // the paths question asked without its anchor: the refusal names the form's fields
    const paths = await mia.post(`${insights}/preview`, {
      tool: "behavior_paths",
      touchpoint: w.tenant.touchpoint,
    });
    assert.match(paths.html, /Not yet: /);
    assert.doesNotMatch(paths.html, /`|invalid input for/, paths.html);
    assert.match(paths.html, /“Page”/);
  } finally {
    await w.close();
  }
});

Deno.test("insight builder: hints name choices as the form does; a question's own default period is named", async () => {
  const { hintText, insightSummary } = await import("../../../routes/app/questions.ts");
  assert.equal(hintText("default pageviews"), "default: Pageviews");
  assert.equal(hintText("default desc"), "default: Highest first");
  const w = await peopleWorld();
  try {
    const mia = await w.join("mia@example.com", "member");
    const pages = await mia.open(`${orgUrl(w.org, "insights")}/new?tool=behavior_pages`);
    assert.doesNotMatch(pages.html, /default pageviews|default desc/);
    const insight = (tool: string, input: Record<string, unknown>) => ({
      kind: "insight" as const,
      id: "i",
      org: w.org,
      touchpoint: "tp",
      name: "n",
      description: "",
      author: "u",
      created_at: "",
      updated_at: "",
      tool,
      input,
    });
    // crawl coverage asks 30 days, sessions 7, the others the read API's 28, when the insight names none
    assert.match(insightSummary(insight("behavior_crawl_coverage", {}), []), /Last 30 days/);
    assert.match(insightSummary(insight("behavior_sessions", {}), []), /Last 7 days/);
    assert.match(insightSummary(insight("behavior_overview", {}), []), /Last 28 days/);
    assert.match(insightSummary(insight("behavior_overview", { period: "this_month" }), []), /This month/);
  } finally {
    await w.close();
  }
});
