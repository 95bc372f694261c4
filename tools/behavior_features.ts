import { z } from "zod";
import { groupCount, groupRate, groupSize } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  limitInput,
  offsetInput,
  pageInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import type { AggregateResult, Filter } from "../lib/query/api.ts";
import { FEWER_THAN_5, isFew } from "../lib/answers/privacy.ts";
import { SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const SORTS = ["clicks", "rage_clicks"] as const;

/**
 * Rage clicks, form starts and submits are counts of their own visitors (not the row's clickers): under a saved
 * cohort each reads "fewer than 5" where 1 to 4 visitors made it (rule 5), which the guard over the answer cannot
 * see from the row's `visitors`.
 */
const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);

const element = z.object({
  element: z.string().describe("the element's name, from its fingerprint (visible text, role, #id or tag)"),
  page: z.string(),
  clicks: groupCount("events", z.number()),
  visitors: groupSize(z.number()).describe("visitors who clicked it"),
  rage_clicks: groupCount("events", count).describe(
    "clicks that were the 3rd or later on it within a second",
  ),
  rage_click_visitors_share: groupRate(["rage_clicks"], z.number().nullable()).describe(
    "share (0-1) of the visitors clicking it who rage-clicked it; null without clicks",
  ),
  form_starts: groupCount("events", count).describe(
    "sessions that changed a field of it: on a form's row its fields' changes; on a field's row changes that " +
      "named no form (a field outside any form, or sent before changes named their form)",
  ),
  form_submits: groupCount("events", count).describe("times it was submitted (forms)"),
});

const output = answerSchema({
  sort: z.object({ by: z.enum(SORTS) }),
  offset: z.number(),
  elements: z.array(element),
  elements_total: z.number().describe("elements (by name and page) used in the period"),
});

/** A row while it is made: every count a number, with the visitors behind the counts of their own. */
type Row =
  & {
    [K in keyof z.infer<typeof element>]: K extends "rage_clicks" | "form_starts" | "form_submits" ? number
      : z.infer<typeof element>[K];
  }
  & { by: { rage: number; starts: number; submits: number } };
const keyOf = (k: Record<string, unknown>) => JSON.stringify([label(k.element), label(k.page)]);

/** The row as answered; under a cohort its own-visitor counts of 1 to 4 visitors read "fewer than 5". */
function shown({ by, ...x }: Row, cohort: boolean): z.infer<typeof element> {
  if (!cohort) return x;
  return {
    ...x,
    rage_clicks: isFew(by.rage) ? FEWER_THAN_5 : x.rage_clicks,
    rage_click_visitors_share: isFew(by.rage) ? null : x.rage_click_visitors_share,
    form_starts: isFew(by.starts) ? FEWER_THAN_5 : x.form_starts,
    form_submits: isFew(by.submits) ? FEWER_THAN_5 : x.form_submits,
  };
}

export default defineTool({
  name: "behavior_features",
  description:
    "Which buttons, links and forms people use, per element and page: clicks, visitors clicking, rage clicks " +
    "(the 3rd and later click on one element within a second) and the share of its visitors who rage-clicked, " +
    "form starts (sessions that changed a field) and submits: a field's change counts on its form's row, so " +
    "a form's starts and submits sit side by side (changes that name no form stay on the field's row). Elements are named from their fingerprint " +
    "(visible text, role, #id or tag) and grouped by name and page, so a changed selector does not split them. " +
    "Sort by clicks or rage_clicks, pass `page` for one page, page through with offset. For a page's overall " +
    "rage clicks and exits use behavior_pages; for custom events use behavior_events.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    page: pageInput.optional(),
    sort_by: z.enum(SORTS).optional().describe("default clicks"),
    limit: limitInput.optional(),
    offset: offsetInput.optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, {
      ...input,
      filters: [{ field: "event_type", op: "eq", value: "$autocapture" }],
    });
    const by = input.sort_by ?? "clicks";
    const offset = input.offset ?? 0;
    const limit = input.limit ?? 25;
    const action = (value: string): Filter => ({ field: "prop:action", op: "eq", value });
    const at = (...more: Filter[]) => ({ ...r.scope, filters: [...r.scope.filters ?? [], ...more] });
    const breakdown = ["element", "page"] as ("element" | "page")[];
    // A change that names its form (properties.form_element, set at ingest) starts that form; one that does
    // not (a field outside any form, an event stored before changes named their form) starts its own field.
    const formOf = "prop:form_element" as const;
    const named: Filter = { field: formOf, op: "prefix", value: "" }; // any form name at all
    const [clicks, raging, formChanges, fieldChanges, submits] = await Promise.all([
      r.engine.aggregate(at(action("click")), { metrics: ["events", "visitors", "rage_clicks"], breakdown }),
      r.engine.aggregate(at({ field: "prop:rage_click", op: "eq", value: "true" }), {
        metrics: ["visitors"],
        breakdown,
      }),
      r.engine.aggregate(at(action("change"), named), {
        metrics: ["sessions", "visitors"],
        breakdown: [formOf, "page"],
      }),
      r.engine.aggregate(at(action("change")), {
        metrics: ["sessions", "visitors"],
        breakdown: [formOf, ...breakdown],
      }),
      r.engine.aggregate(at(action("submit")), { metrics: ["events", "visitors"], breakdown }),
    ]);
    const rows = new Map<string, Row>();
    const row = (k: Record<string, unknown>): Row => {
      const id = keyOf(k);
      let x = rows.get(id);
      if (!x) {
        x = {
          element: label(k.element),
          page: label(k.page),
          clicks: 0,
          visitors: 0,
          rage_clicks: 0,
          rage_click_visitors_share: null,
          form_starts: 0,
          form_submits: 0,
          by: { rage: 0, starts: 0, submits: 0 },
        };
        rows.set(id, x);
      }
      return x;
    };
    const each = (res: AggregateResult, f: (x: Row, m: Record<string, number | null>) => void) => {
      for (const g of res.rows) f(row(g.key), g.metrics as Record<string, number | null>);
    };
    each(clicks, (x, m) => {
      x.clicks = m.events ?? 0;
      x.visitors = m.visitors ?? 0;
      x.rage_clicks = m.rage_clicks ?? 0;
    });
    const ragingVisitors = new Map(raging.rows.map((g) => [keyOf(g.key), g.metrics.visitors ?? 0]));
    for (const [id, x] of rows) {
      x.by.rage = ragingVisitors.get(id) ?? 0;
      x.rage_click_visitors_share = x.visitors > 0 ? rate(x.by.rage / x.visitors) : null;
    }
    const starts = (x: Row, m: Record<string, number | null>) => {
      x.form_starts = m.sessions ?? 0;
      x.by.starts = m.visitors ?? 0;
    };
    for (const g of formChanges.rows) starts(row({ element: g.key[formOf], page: g.key.page }), g.metrics);
    for (const g of fieldChanges.rows) if (g.key[formOf] === null) starts(row(g.key), g.metrics);
    each(submits, (x, m) => {
      x.form_submits = m.events ?? 0;
      x.by.submits = m.visitors ?? 0;
    });
    // Elements used in another way (a form's fields changed, a form submitted) count with their clicks.
    const all = [...rows.values()].sort((a, b) =>
      b[by] - a[by] || b.clicks - a.clicks || b.form_submits - a.form_submits ||
      b.form_starts - a.form_starts || (a.page + a.element < b.page + b.element ? -1 : 1)
    );
    const elements = all.slice(offset, offset + limit).map((x) => shown(x, ctx.cohort !== null));
    return {
      scope: r.answerScope,
      sort: { by },
      offset,
      elements,
      elements_total: all.length,
      notices: elements.some((x) => Object.values(x).includes(FEWER_THAN_5)) ? [SMALL_GROUP_NOTICE] : [],
    };
  },
});
