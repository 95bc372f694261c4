/** The zod shapes every answer shares: scope first, notices last. Tools add their own fields between. */
import { z } from "zod";
import { PERIOD_HELP, PERIOD_PATTERN } from "./period.ts";

export const periodInput = z.string().regex(PERIOD_PATTERN, `use ${PERIOD_HELP}`).describe(
  `Time period, resolved in the organization's timezone: ${PERIOD_HELP}. Default last_28_days.`,
);
export const touchpointInput = z.string().min(1).max(200).describe(
  "Website or app: its id, name or domain (one that fits several is refused: give the id). May be omitted when " +
    "the organization has exactly one.",
);
export const pageInput = z.string().regex(/^\//, "a page is a path starting with /").max(1024).describe(
  "Page path, e.g. /pricing (no query string).",
);
export const cohortInput = z.string().min(1).max(200).describe(
  "A saved cohort's name or id (behavior_saved lists them): counts only its visitors, exactly; groups of 1 to " +
    '4 visitors then read "fewer than 5".',
);
export const limitInput = z.number().int().min(1).max(25).describe("Items per page, 1 to 25 (default 25).");
export const offsetInput = z.number().int().min(0).max(1_000_000).describe("Items to skip, for paging.");

export const windowSchema = z.object({ from: z.string(), to: z.string() });

export const scopeSchema = z.object({
  period: z.object({
    name: z.string(),
    from: z.string().describe("start, ISO 8601, inclusive"),
    to: z.string().describe("end, ISO 8601, exclusive"),
    from_date: z.string(),
    to_date: z.string(),
    previous: windowSchema.nullable().describe("the window compared against, when any"),
    cut_by_history: z.boolean(),
  }).nullable(),
  timezone: z.string(),
  environment: z.string(),
  touchpoint: z.object({ id: z.string(), name: z.string(), kind: z.string(), domain: z.string().nullable() })
    .nullable(),
  traffic: z.string().describe(
    "which traffic is counted: visitors (bots and AI agents left out), crawlers, all",
  ),
  filter: z.string().nullable().describe("a filter on an event property or a saved cohort, when any"),
  page: z.string().nullable().describe("the page the figures are limited to, when any (counts stay exact)"),
  history_limit_days: z.number(),
});
export type Scope = z.infer<typeof scopeSchema>;

export const noticesSchema = z.array(z.string()).describe(
  "allowance use, privacy thresholds applied, data freshness, period cut to the history limit",
);

/** An answer schema: scope, then the tool's fields, then notices. */
export function answerSchema<T extends z.ZodRawShape>(fields: T) {
  return z.object({ scope: scopeSchema, ...fields, notices: noticesSchema });
}

/** A number with its previous-period value and change, as every comparison is given. */
export const compared = z.object({
  value: z.number().nullable(),
  previous: z.number().nullable(),
  change: z.number().nullable().describe("relative change, -0.25 means 25% down; null when not comparable"),
});
export type Compared = z.infer<typeof compared>;

export function compare(value: number | null, previous: number | null): Compared {
  const change = value === null || previous === null || previous === 0
    ? null
    : Math.round(((value - previous) / previous) * 1000) / 1000;
  return { value, previous, change };
}

/** A list of at most 25 items with the total count beside it. */
export const listOf = <T extends z.ZodType>(item: T) => z.array(item).max(25);
