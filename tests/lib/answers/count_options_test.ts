/**
 * `groupCount(kind, schema, { sizeOf, partOf })`: the declaration the guard (small_groups.ts) and the checker
 * (check.ts) both read, in place of per-tool masks. A count whose own group (`sizeOf`) is 1 to 4 reads "fewer
 * than 5"; a count 1 to 4 short of the count it is part of (`partOf`) is withheld with its rates.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { checkAnswer } from "../../../lib/answers/check.ts";
import { groupCount, groupRate, groupSize } from "../../../lib/answers/group_counts.ts";
import { answerSchema } from "../../../lib/answers/schema.ts";
import { guardSmallGroups } from "../../../lib/answers/small_groups.ts";

const output = answerSchema({
  rows: z.array(z.object({
    name: z.string(),
    visitors: groupSize(z.number()),
    previous_visitors: groupCount("visitors", z.number().nullable()),
    previous_events: groupCount("events", z.number().nullable(), { sizeOf: "previous_visitors" }),
    conversions: groupCount("visitors", z.number().nullable(), { partOf: "visitors" }),
    conversion_rate: groupRate(["conversions"], z.number().nullable()),
  })),
  rows_total: z.number(),
});

const scope = {
  period: { from: "2026-11-01", to: "2026-11-07" },
  timezone: "UTC",
  environment: "production",
  touchpoint: "acme.test",
  traffic: "human",
  filter: "cohort lookers",
};
const answer = () => ({
  scope,
  rows: [
    {
      name: "a",
      visitors: 20,
      previous_visitors: 3,
      previous_events: 40,
      conversions: 17,
      conversion_rate: 0.85,
    },
    {
      name: "b",
      visitors: 20,
      previous_visitors: 9,
      previous_events: 40,
      conversions: 10,
      conversion_rate: 0.5,
    },
  ],
  rows_total: 2,
  notices: [],
});

Deno.test("count options: the checker fails a count of a small own group and a part 1 to 4 short", () => {
  const problems = checkAnswer(answer(), { output });
  assert.ok(problems.some((p) => p.includes("rows[0].previous_events")), problems.join("\n"));
  assert.ok(problems.some((p) => p.includes("rows[0].conversions")), problems.join("\n"));
  assert.ok(!problems.some((p) => p.includes("rows[1]")), problems.join("\n"));
});

Deno.test("count options: the guard reads them, and the guarded answer passes the checker", () => {
  const a = answer();
  assert.ok(guardSmallGroups(a, output));
  assert.deepEqual(a.rows[0], {
    name: "a",
    visitors: 20,
    previous_visitors: "fewer than 5",
    previous_events: "fewer than 5",
    conversions: null,
    conversion_rate: null,
  });
  assert.deepEqual(a.rows[1], answer().rows[1]);
  assert.deepEqual(checkAnswer(a, { output }), []);
});

Deno.test("groupApart: the checker fails two properties of one event 1 to 4 apart", async () => {
  const { TOOLS } = await import("../../../tools/registry.ts");
  const props = TOOLS.find((t) => t.name === "behavior_event_properties")!.output as z.ZodType;
  const property = (name: string, n: number, value: string) => ({
    property: name,
    events: n,
    visitors: n,
    values: [{ value, visitors: n, events: n }],
    values_total: 1,
    values_withheld: 0,
  });
  const a = {
    scope,
    event: "look",
    properties: [property("plan", 18, "pro"), property("coupon", 15, "fall")],
    properties_total: 2,
    notices: [],
  };
  const problems = checkAnswer(a, { output: props });
  assert.ok(problems.some((p) => p.includes("properties[0] and [1]: visitors")), problems.join("\n"));
  a.properties[1] = property("coupon", 9, "fall");
  assert.deepEqual(checkAnswer(a, { output: props }), []);
});
