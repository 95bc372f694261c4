/**
 * Steps as the sequence tools take them (funnel steps, a path's anchor, retention's events): a page, a page
 * prefix (`/docs/*`) or an event name, turned into the engine's step and named for the answer.
 */
import { z } from "zod";
import type { Filter, StepDef } from "../lib/query/api.ts";
import { urlPath } from "../lib/url_path.ts";

export const PAGEVIEW = "$pageview";

export const pagePatternInput = z.string().regex(
  /^\/[^*?#]*\*?$/,
  "a page is a path starting with / (no query string); a trailing * matches every path starting with what comes before it",
).max(1024).describe(
  "a page path, e.g. /pricing; a trailing * matches every path that starts with what comes before it: " +
    "/docs/* is every page under /docs/, /docs* also /docs itself",
);

export const eventNameInput = z.string().min(1).max(120).describe("an event name, e.g. sign_up");

/** One step: a page (or page prefix) or an event, optionally with one property condition. */
export const stepInput = z.object({
  page: pagePatternInput.optional(),
  event: eventNameInput.optional(),
  property: z.string().min(1).max(200).optional().describe("an event property the step's event must carry"),
  value: z.union([z.string().max(500), z.number(), z.boolean()]).optional().describe(
    "the value `property` must have (compared as text: 49, true)",
  ),
}).strict().superRefine((s, ctx) => {
  if ((s.page === undefined) === (s.event === undefined)) {
    ctx.addIssue({ code: "custom", message: "a step is either a page or an event: give one of them" });
  }
  if ((s.property === undefined) !== (s.value === undefined)) {
    ctx.addIssue({ code: "custom", message: "a property condition needs both `property` and `value`" });
  }
});
export type StepInput = z.infer<typeof stepInput>;

/** The engine's filter for a page or a page prefix, in the form pages are stored ("/über-uns": "/%C3%BCber-uns"). */
export function pageFilter(page: string): Filter {
  return page.endsWith("*")
    ? { field: "page", op: "prefix", value: urlPath(page.slice(0, -1)) }
    : { field: "page", op: "eq", value: urlPath(page) };
}

export function toStepDef(s: { page?: string; event?: string; property?: string; value?: unknown }): StepDef {
  const filters: Filter[] = [];
  if (s.page !== undefined) filters.push(pageFilter(s.page));
  if (s.property !== undefined) {
    filters.push({ field: `prop:${s.property}`, op: "eq", value: String(s.value) });
  }
  return { event_type: s.page !== undefined ? PAGEVIEW : s.event!, ...(filters.length ? { filters } : {}) };
}

/** How a step reads in an answer: "/pricing", "/docs/*", "sign_up", "sign_up where plan = pro". */
export function stepName(s: StepInput): string {
  const base = s.page ?? s.event!;
  return s.property === undefined ? base : `${base} where ${s.property} = ${String(s.value)}`;
}
