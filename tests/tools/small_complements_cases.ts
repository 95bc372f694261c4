/**
 * Rule 5 by complement: under a saved cohort, a group that reads "fewer than 5" must not be the answer's own
 * whole less its other figures. 18 cohort members visit "/"; 14 go on to /pricing, 4 leave at "/" (one
 * pageview, a bounce). Before the fix each answer told the 4: paths (18 visits less the 14 of the other path),
 * pages (18 entries less the 14 exits of /pricing), the overview (bounce rate × 18 sessions).
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { checkAnswer } from "../../lib/answers/check.ts";
import { TOOLS } from "../../tools/registry.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { NOW } from "./generate.ts";
import { harness } from "./harness.ts";

const DAY = 86_400_000;
const few = (n: number) => n > 0 && n < 5;
const numbers = (xs: unknown[]) => xs.filter((x): x is number => typeof x === "number");
const sum = (xs: unknown[]) => numbers(xs).reduce((a, b) => a + b, 0);
const outputOf = (tool: string) => TOOLS.find((t) => t.name === tool)!.output as z.ZodType;

function lookers(t: { org: string; touchpoint: string }) {
  return Array.from({ length: 18 }, (_, v) => {
    const at = NOW - 2 * DAY + v * 60_000;
    const base = {
      org: t.org,
      touchpoint: t.touchpoint,
      anonymous_id: `looker-${v}`,
      session_id: `look-${v}`,
    };
    const goesOn = v < 14;
    return [
      ev({ ...base, received_at: at, sequence_no: 0, event_type: "$pageview", path: "/" }),
      ev({
        ...base,
        received_at: at + 1_000,
        sequence_no: 1,
        event_type: "look",
        path: "/",
        properties: { plan: goesOn ? "pro" : `plan-${v}` },
      }),
      ...(goesOn
        ? [
          ev({
            ...base,
            received_at: at + 20_000,
            sequence_no: 2,
            event_type: "$pageview",
            path: "/pricing",
          }),
        ]
        : []),
    ];
  }).flat();
}

Deno.test("small groups by complement: paths, pages and the bounce rate do not tell the 4 who left", async () => {
  const h = await harness({ visitors: 30 });
  try {
    await store(h.deps.kv, { events: lookers(h.t) });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "lookers", { kind: "event", event: "look" });
    const asked = { period: "last_7_days", cohort: "lookers" };

    const paths = await h.ask("behavior_paths", { ...asked, page: "/" });
    assert.equal(paths.anchor_visits, 18);
    const pathVisits = paths.paths.map((p: { visits: unknown }) => p.visits);
    assert.ok(!few(paths.anchor_visits - sum(pathVisits)), `paths tell ${JSON.stringify(paths.paths)}`);
    assert.deepEqual(paths.paths.map((p: { steps: string[] }) => p.steps), [["(other)"]]);
    assert.deepEqual(checkAnswer(paths, { output: outputOf("behavior_paths") }), []);

    const overview = await h.ask("behavior_overview", asked);
    const sessions = overview.sessions.value;
    assert.equal(sessions, 18);
    assert.equal(overview.bounce_rate.value, null, "4 of 18 sessions bounced: the rate would tell the 4");

    const pages = await h.ask("behavior_pages", asked);
    assert.equal(pages.pages_total, 2);
    for (const k of ["entries", "exits"]) {
      const column = pages.pages.map((p: Record<string, unknown>) => p[k]);
      assert.ok(!few(sessions - sum(column)), `${k}: ${JSON.stringify(column)} beside ${sessions} sessions`);
    }
    const pricing = pages.pages.find((p: { page: string }) => p.page === "/pricing");
    assert.deepEqual(
      [pricing.exits, pricing.exit_rate],
      [null, null],
      "the complement and its rate withheld",
    );
    // paging through the list one page at a time gives the same withheld figures
    const second = await h.ask("behavior_pages", { ...asked, limit: 1, offset: 1 });
    assert.deepEqual(second.pages[0], pages.pages[1]);
    assert.deepEqual(checkAnswer(pages, { output: outputOf("behavior_pages") }), []);

    // 14 looked at plan "pro", 4 at plans of their own (withheld, never named): their 4 is not the rest
    const props = await h.ask("behavior_event_properties", { ...asked, event: "look" });
    const plan = props.properties.find((p: { property: string }) => p.property === "plan");
    assert.equal(plan.visitors, 18);
    assert.ok(
      !few(plan.visitors - sum(plan.values.map((x: { visitors: unknown }) => x.visitors))),
      JSON.stringify(plan),
    );
    assert.ok(
      !few(plan.events - sum(plan.values.map((x: { events: unknown }) => x.events))),
      JSON.stringify(plan),
    );
    assert.deepEqual(checkAnswer(props, { output: outputOf("behavior_event_properties") }), []);

    // without a cohort nothing is withheld
    const all = await h.ask("behavior_overview", { period: "last_7_days" });
    assert.equal(typeof all.bounce_rate.value, "number");
    const allPages = await h.ask("behavior_pages", { period: "last_7_days" });
    assert.ok(allPages.pages.every((p: { exits: unknown }) => typeof p.exits === "number"));
  } finally {
    h.close();
  }
});
