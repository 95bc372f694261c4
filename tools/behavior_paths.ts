import { z } from "zod";
import { groupCount, groupParts, groupRate, groupSize } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { invalid } from "../lib/errors.ts";
import { rate, resolve } from "../toolkit/common.ts";
import { eventNameInput, pagePatternInput, toStepDef } from "../toolkit/steps.ts";
import { defineTool } from "../toolkit/tool.ts";

const MAX_PATHS = 25, MAX_NEAREST = 10;
/** The engine ends a walk with "(end)": after the anchor the visit ended there, before it the visit began. */
const END = "(end)";
const EXIT = "(exit)", ENTRY = "(entry)";

const share = groupRate([], z.number().nullable()).describe(
  "visitors / visitors who reached the anchor, 0-1",
);

const output = answerSchema({
  anchor: z.string().describe("the page or event the paths start from (after) or lead to (before)"),
  direction: z.enum(["after", "before"]),
  depth: z.number(),
  steps_shown: z.enum(["pages", "pages_and_events"]),
  anchor_visitors: groupSize(z.number()).describe("visitors with a visit that reached the anchor"),
  anchor_visits: groupCount("visits", z.number()).describe(
    "visits that reached the anchor (the first time in each visit counts)",
  ),
  // each visit that reached the anchor takes one path: the paths split the anchor's visits (and, one visit a
  // visitor, its visitors), so under a filter a small path is folded with others into ["(other)"]; each path
  // lies inside its first step's row of nearest_steps, whose figure less the paths named under it must not
  // tell 1 to 4 either (lib/answers/fold_nested.ts)
  paths: groupParts(
    (a) => ({ visitors: a.anchor_visitors, visits: a.anchor_visits }),
    z.array(z.object({
      steps: z.array(z.string()).describe(
        `the steps in order away from the anchor; ${EXIT} = the visit ended, ${ENTRY} = the visit began there`,
      ),
      visitors: groupSize(z.number()).describe(
        "visitors with a visit that took this path (one may take several)",
      ),
      visits: groupCount("visits", z.number()),
      share,
    })),
    undefined,
    "steps",
    { within: { list: "nearest_steps", of: (p) => (p.steps as string[]).slice(0, 1) } },
  ).describe("the most common paths, by visitors"),
  paths_total: z.number().describe("distinct paths"),
  // each visit takes one step right after (before) the anchor: its whole is the anchor's visitors and visits
  nearest_steps: groupParts(
    (a) => ({ visitors: a.anchor_visitors, visits: a.anchor_visits }),
    z.array(z.object({
      name: z.string(),
      visitors: groupSize(z.number()),
      visits: groupCount("visits", z.number()),
      share,
    })),
  )
    .describe("the step right after (or before) the anchor, top 10 by visitors"),
  nearest_steps_total: z.number(),
});

export default defineTool({
  name: "behavior_paths",
  description:
    "Where visits go after a page or an event, or where they came from before it, up to 5 steps deep, " +
    `and where they end: the most common paths (at most ${MAX_PATHS}) with visitors, visits and their share ` +
    "of the visitors who reached the anchor, plus the single next (or previous) step ranked on its own. Pass " +
    'the anchor as `page` ("/pricing", or a section "/docs/*") or `event` ("sign_up"), `direction` after ' +
    "(default) or before, `depth` 1-5 (default 3). Steps are pages by path, reloads of one page collapsed into " +
    `one step; ${EXIT} means the visit ended (after), ${ENTRY} that it began (before). Set include_events to ` +
    "show custom events (sign_up, purchase) as steps among the pages. For conversion through fixed steps use " +
    "behavior_funnel; for page-level exit rates use behavior_pages.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    page: pagePatternInput.optional().describe("the anchor page: a path, or a section with a trailing *"),
    event: eventNameInput.optional().describe("the anchor event, e.g. sign_up"),
    direction: z.enum(["after", "before"]).optional().describe("default after"),
    depth: z.number().int().min(1).max(5).optional().describe("steps to follow, 1-5, default 3"),
    include_events: z.boolean().optional().describe(
      "custom events as steps too (default: pages only; automatic events such as clicks are never steps)",
    ),
    limit: z.number().int().min(1).max(MAX_PATHS).optional().describe(`paths to show, default ${MAX_PATHS}`),
  }).strict(),
  output,
  async run(ctx, input) {
    if ((input.page === undefined) === (input.event === undefined)) {
      throw invalid("name the anchor: either `page` (e.g. /pricing) or `event` (e.g. sign_up), not both");
    }
    const r = resolve(ctx, input);
    const direction = input.direction ?? "after";
    const depth = input.depth ?? 3;
    const res = await r.engine.paths(r.scope, {
      anchor: toStepDef(input),
      direction,
      depth,
      step: input.include_events ? "page_or_event" : "page",
      rank: "visitors",
      limit: input.limit ?? MAX_PATHS,
    });
    const end = direction === "after" ? EXIT : ENTRY;
    const name = (s: string) => (s === END ? end : s);
    const shareOf = (n: number) => rate(res.visitors > 0 ? n / res.visitors : null);
    const nearest = res.steps[0];
    return {
      scope: r.answerScope,
      anchor: input.page ?? input.event!,
      direction,
      depth,
      steps_shown: input.include_events ? "pages_and_events" as const : "pages" as const,
      anchor_visitors: res.visitors,
      anchor_visits: res.sessions,
      paths: res.sequences.map((p) => ({
        steps: p.steps.map(name),
        visitors: p.visitors,
        visits: p.sessions,
        share: shareOf(p.visitors),
      })),
      paths_total: res.total_sequences,
      nearest_steps: nearest.rows.slice(0, MAX_NEAREST).map((x) => ({
        name: name(x.value),
        visitors: x.visitors,
        visits: x.sessions,
        share: shareOf(x.visitors),
      })),
      nearest_steps_total: nearest.total_rows,
      notices: [],
    };
  },
});
