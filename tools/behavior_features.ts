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
import type { AggregateOptions, AggregateResult, Filter, KeyValue } from "../lib/query/api.ts";
import { FEWER_THAN_5, isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { ELEMENT_PLAIN } from "../lib/enrich/element.ts";
import { SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const SORTS = ["clicks", "rage_clicks"] as const;

/** The field asked for an element's name without its text (lib/enrich/element.ts ELEMENT_PLAIN). */
const PLAIN = `prop:${ELEMENT_PLAIN}` as const;

/** The name of an element whose name is withheld and whose plain name is unknown (stored before ingest set one). */
export const NAME_WITHHELD = "(name withheld)";
/** The row of forms whose names fewer than 5 visitors used, stored before a form was named by its id. */
export const FORM_WITHHELD = "(form name withheld)";

const TEXT_WITHHELD_NOTICE =
  "an element whose text fewer than 5 visitors used is named by its #id, role or tag";

/**
 * Rage clicks, form starts and submits are counts of their own visitors (not the row's clickers): under a saved
 * cohort each reads "fewer than 5" where 1 to 4 visitors made it (rule 5), which the guard over the answer cannot
 * see from the row's `visitors`.
 */
const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);

const element = z.object({
  element: z.string().describe(
    "the element's name, from its fingerprint: its visible text where 5 or more visitors used that text, " +
      `else its #id, role or tag ("${NAME_WITHHELD}", or "${FORM_WITHHELD}" for a form, for events stored ` +
      "before that name was kept)",
  ),
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

type Sort = typeof SORTS[number];

/**
 * Which names rows show as they are (`byElement`): those 5 or more visitors used, and the names of elements
 * never named by their text (their plain name is their name). Any other element is named by its plain name:
 * a text fewer than 5 visitors used, and an event stored before plain names were kept (`withheld`). A name
 * that is also the plain name of a withheld one (an icon button's `#account-menu`, and the same button
 * labelled with the visitor's own name) is asked by plain name too, so one name is one row, its visitors
 * counted once.
 */
function naming(byName: AggregateResult, byPair: AggregateResult) {
  const shown = new Set<string>();
  for (const g of byName.rows) {
    const e = g.key.element;
    if (typeof e === "string" && (g.metrics.visitors ?? 0) >= SMALL_GROUP) shown.add(e);
  }
  const plains = new Map<string, Set<KeyValue>>();
  for (const g of byPair.rows) {
    const e = g.key.element;
    if (typeof e !== "string") continue;
    let ps = plains.get(e);
    if (!ps) plains.set(e, ps = new Set());
    ps.add(g.key[PLAIN]);
  }
  let withheld: Set<string>, taken: Set<string>;
  for (;;) {
    withheld = new Set(), taken = new Set();
    for (const [e, ps] of plains) {
      if (shown.has(e) || [...ps].every((p) => p === e)) continue;
      withheld.add(e);
      for (const p of ps) if (typeof p === "string") taken.add(p);
    }
    const clash = [...taken].filter((p) => shown.has(p));
    if (!clash.length) break;
    for (const p of clash) shown.delete(p);
  }
  const byElement = new Set(shown);
  for (const e of plains.keys()) if (!withheld.has(e) && !taken.has(e)) byElement.add(e);
  return { byElement, withheld: withheld.size > 0 };
}

/** A row's figure as the answer shows it, for sorting: null where it reads "fewer than 5" (under a cohort). */
function sortValue(x: Row, k: Sort | "form_submits" | "form_starts", cohort: boolean): number | null {
  const v = x[k];
  if (!cohort || v === 0) return v;
  const own = k === "rage_clicks"
    ? x.by.rage
    : k === "form_starts"
    ? x.by.starts
    : k === "form_submits"
    ? x.by.submits
    : 0;
  return isFew(v) || isFew(x.visitors) || isFew(own) ? null : v;
}

/** Descending, a withheld figure (null) after every number. */
const order = (a: number | null, b: number | null) => a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a;

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
    "(visible text, role, #id or tag) and grouped by name and page, so a changed selector does not split them; " +
    "a text fewer than 5 visitors used is never shown: such an element is named by its #id, role or tag. " +
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
    const asked: [Filter[], AggregateOptions][] = [
      [[action("click")], { metrics: ["events", "visitors", "rage_clicks"], breakdown }],
      [[{ field: "prop:rage_click", op: "eq", value: "true" }], { metrics: ["visitors"], breakdown }],
      [[action("change")], { metrics: ["sessions", "visitors"], breakdown: [formOf, ...breakdown] }],
      [[action("submit")], { metrics: ["events", "visitors"], breakdown }],
    ];
    // Which names may be shown (an element's text only where 5 or more visitors used it, as a property value
    // is named), asked beside the questions by name; rows whose name may not be shown are asked again of the
    // elements by their plain name (`element_plain`, set at ingest: #id, role or tag).
    // A form's name is never its text since 1c45163, but one stored before may be (a rich-text editor's
    // contents): a form name of events without a plain name is shown only where 5 or more visitors used it.
    const [[byName, byPair], [formNames, formPairs], formChanges, ...byElement] = await Promise.all([
      r.engine.aggregateMany(at(), [
        { metrics: ["visitors"], breakdown: ["element"] },
        { metrics: ["events"], breakdown: ["element", PLAIN] },
      ]),
      r.engine.aggregateMany(at(action("change"), named), [
        { metrics: ["visitors"], breakdown: [formOf] },
        { metrics: ["events"], breakdown: [formOf, PLAIN] },
      ]),
      r.engine.aggregate(at(action("change"), named), {
        metrics: ["sessions", "visitors"],
        breakdown: [formOf, "page"],
      }),
      ...asked.map(([fs, o]) => r.engine.aggregate(at(...fs), o)),
    ]);
    const names = naming(byName, byPair);
    const forms = new Set(
      formNames.rows.filter((g) => (g.metrics.visitors ?? 0) >= SMALL_GROUP).map((g) =>
        String(g.key[formOf])
      ),
    );
    const oldForms = new Set(
      formPairs.rows.filter((g) => g.key[PLAIN] === null).map((g) => String(g.key[formOf])),
    );
    for (const g of formPairs.rows) {
      if (!oldForms.has(String(g.key[formOf]))) forms.add(String(g.key[formOf]));
    }
    const formShown = formChanges.rows.filter((g) => forms.has(String(g.key[formOf])));
    const formsWithheld = formShown.length < formChanges.rows.length
      ? await r.engine.aggregate(
        at(action("change"), named, { field: formOf, op: "neq", value: [...forms] }),
        {
          metrics: ["sessions", "visitors"],
          breakdown: ["page"],
        },
      )
      : null;
    const keep = (k: Record<string, KeyValue>) =>
      k.element === null || names.byElement.has(String(k.element));
    const rest = byElement.some((a) => a.rows.some((g) => !keep(g.key)));
    const plainRest: Filter[] = [
      { field: "element", op: "neq", value: [...names.byElement] },
      { field: "element", op: "prefix", value: "" },
    ];
    const byPlain = rest
      ? await Promise.all(asked.map(([fs, o]) =>
        r.engine.aggregate(at(...fs, ...plainRest), {
          ...o,
          breakdown: o.breakdown!.map((f) => (f === "element" ? PLAIN : f)),
        })
      ))
      : [];
    // each question's rows named as they are, and (asked again) by plain name
    const answers = asked.map((_, k) => [
      { ...byElement[k], rows: byElement[k].rows.filter((g) => keep(g.key)) },
      ...(rest ? [byPlain[k]] : []),
    ]);
    const [clicks, raging, fieldChanges, submits] = answers;
    /** The name a row of an answer shows: its name (shown) or its plain name, as the question asked. */
    const nameOf = (k: Record<string, KeyValue>) => {
      if (PLAIN in k) return k[PLAIN] !== null ? String(k[PLAIN]) : NAME_WITHHELD;
      return label(k.element);
    };
    const rows = new Map<string, Row>();
    const row = (name: string, page: string): Row => {
      const id = JSON.stringify([name, page]);
      let x = rows.get(id);
      if (!x) {
        x = {
          element: name,
          page,
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
    // (a name is one answer's: by name, or by plain name)
    const each = (res: AggregateResult[], f: (x: Row, m: Record<string, number | null>) => void) => {
      for (const a of res) {
        for (const g of a.rows) {
          f(row(nameOf(g.key), label(g.key.page)), g.metrics as Record<string, number | null>);
        }
      }
    };
    each(clicks, (x, m) => {
      x.clicks += m.events ?? 0;
      x.visitors += m.visitors ?? 0;
      x.rage_clicks += m.rage_clicks ?? 0;
    });
    // (rage clicks are clicks: their rows are the clicks' rows)
    for (const a of raging) {
      for (const g of a.rows) {
        const x = rows.get(JSON.stringify([nameOf(g.key), label(g.key.page)]));
        if (x) x.by.rage += g.metrics.visitors ?? 0;
      }
    }
    for (const x of rows.values()) {
      x.rage_click_visitors_share = x.visitors > 0 ? rate(x.by.rage / x.visitors) : null;
    }
    const starts = (x: Row, m: Record<string, number | null>) => {
      x.form_starts += m.sessions ?? 0;
      x.by.starts += m.visitors ?? 0;
    };
    for (const g of formShown) starts(row(label(g.key[formOf]), label(g.key.page)), g.metrics);
    for (const g of formsWithheld?.rows ?? []) starts(row(FORM_WITHHELD, label(g.key.page)), g.metrics);
    each(fieldChanges.map((a) => ({ ...a, rows: a.rows.filter((g) => g.key[formOf] === null) })), starts);
    each(submits, (x, m) => {
      x.form_submits += m.events ?? 0;
      x.by.submits += m.visitors ?? 0;
    });
    // Elements used in another way (a form's fields changed, a form submitted) count with their clicks. Under a
    // saved cohort rows sort by the figures they show: one read "fewer than 5" sorts after every number.
    const cohort = ctx.cohort !== null;
    const key = (x: Row, k: Sort | "form_submits" | "form_starts") => sortValue(x, k, cohort);
    const all = [...rows.values()].sort((a, b) =>
      order(key(a, by), key(b, by)) || order(key(a, "clicks"), key(b, "clicks")) ||
      order(key(a, "form_submits"), key(b, "form_submits")) ||
      order(key(a, "form_starts"), key(b, "form_starts")) ||
      (a.page + a.element < b.page + b.element ? -1 : 1)
    );
    const elements = all.slice(offset, offset + limit).map((x) => shown(x, cohort));
    const notices = elements.some((x) => Object.values(x).includes(FEWER_THAN_5)) ? [SMALL_GROUP_NOTICE] : [];
    if (names.withheld || formsWithheld) notices.push(TEXT_WITHHELD_NOTICE);
    return {
      scope: r.answerScope,
      sort: { by },
      offset,
      elements,
      elements_total: all.length,
      notices,
    };
  },
});
