/**
 * The insight builder's result before a question's required inputs are filled in says, in words, what to fill
 * in and names the form's field: the event properties question without its event said "Not yet: event:
 * Invalid input: expected string, received undefined". Every insight question with a required input is asked
 * without it, as the builder first shows it and as its live result is posted.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { INSIGHT_TOOLS } from "../../../tools/registry.ts";
import { listing } from "../../../pipeline/listing.ts";

const JARGON = /Invalid input|expected \w+|received undefined|invalid input for|`/;

Deno.test("insight builder: a required input not filled in yet is asked for in words, naming the field", async () => {
  const w = await peopleWorld();
  try {
    const mia = await w.join("mia@example.com", "member");
    const insights = orgUrl(w.org, "insights");
    const page = await mia.open(`${insights}/new?tool=behavior_event_properties`);
    assert.equal(page.status, 200);
    assert.match(page.html, /Choose an event in “Event” to see its properties\./);
    assert.doesNotMatch(page.html, JARGON);
    const preview = await mia.post(`${insights}/preview`, {
      tool: "behavior_event_properties",
      touchpoint: w.tenant.touchpoint,
      in_event: "",
    });
    assert.match(preview.html, /Choose an event in “Event” to see its properties\./);

    let asked = 0;
    for (const tool of INSIGHT_TOOLS) {
      const required = (listing(tool).input_schema as { required?: string[] }).required ?? [];
      if (!required.length) continue;
      asked++;
      const shown = await mia.open(`${insights}/new?tool=${tool.name}`);
      assert.equal(shown.status, 200, tool.name);
      const result = shown.html.match(/id="insight-result"[^>]*>([\s\S]*?)<\/section>/)?.[1] ?? "";
      assert.doesNotMatch(result, JARGON, `${tool.name}: ${result}`);
      assert.doesNotMatch(result, /Not yet/, `${tool.name}: ${result}`);
    }
    assert.ok(asked >= 2);
  } finally {
    await w.close();
  }
});
