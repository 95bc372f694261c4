import { z } from "zod";
import { groupCount, groupRate, groupSize } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  limitInput,
  offsetInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import { FEWER_THAN_5, guardedTime, isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";
import { pathPiece } from "../lib/url_path.ts";
import type { AggregateResult, Filter, Metric } from "../lib/query/api.ts";
import { label, rate, resolve, round } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const SORTS = [
  "pageviews",
  "visitors",
  "engagement_time_s",
  "scroll_depth_percent",
  "exit_rate",
  "rage_clicks",
  "entries",
  "exits",
] as const;

/** A page's visitors are the ones who viewed it: the engine's `viewers` (events on a page count as its events). */
const METRICS: Metric[] = [
  "pageviews",
  "viewers",
  "engagement_time_s",
  "scroll_depth_percent",
  "exit_rate",
  "rage_clicks",
  "entries",
  "exits",
];

/**
 * Rage clicks, entries and exits are counts of their own visitors (who rage-clicked there, whose visits began
 * or ended there), not of the page's viewers: under a saved cohort, made by 1 to 4 visitors each reads "fewer
 * than 5" (rule 5), which the guard over the answer cannot see from the row's `visitors`.
 */
const count = z.union([z.number(), z.literal(FEWER_THAN_5)]);
type Own = "rage_clicks" | "entries" | "exits";
const OWN: Own[] = ["rage_clicks", "entries", "exits"];

const page = z.object({
  page: z.string(),
  pageviews: groupCount("events", z.number()),
  visitors: groupSize(z.number()).describe("visitors who viewed the page"),
  engagement_time_s: z.number().nullable().describe("mean per page view; withheld under 5 visitors"),
  scroll_depth_percent: groupRate([], z.number().nullable()).describe(
    "mean scroll depth (0-100) the page was left at",
  ),
  exit_rate: groupRate(["exits", "pageviews"], z.number().nullable()).describe("exits / pageviews, 0-1"),
  rage_clicks: groupCount("events", count),
  entries: groupCount("visits", count.nullable()).describe(
    "visits that began on the page; null: withheld beside a small group under a saved cohort",
  ),
  exits: groupCount("visits", count.nullable()).describe(
    "visits that ended on the page; null: withheld beside a small group under a saved cohort",
  ),
});

/** A page while it is made: its counts numbers, with the visitors behind the counts of their own. */
type PageRow =
  & Omit<z.infer<typeof page>, Own>
  & { [K in Own]: K extends "rage_clicks" ? number : number | null }
  & {
    by: Record<Own, number>;
  };

/**
 * Under a saved cohort, each visit has one entry page and one exit page: over the whole list, the cohort's
 * visits less the other pages' entries (or exits) would tell a page's 1 to 4 that reads "fewer than 5" (rule
 * 5). Where a column has such a page, the smallest other figure of 5 or more in it is withheld too (null, and
 * its exit rate), so the rest holds an unknown 5 or more. Chosen over the whole list, so paging through it
 * tells nothing more.
 */
function withholdComplements(rows: PageRow[]): void {
  const hidden = (r: PageRow, k: "entries" | "exits") => {
    const v = r[k];
    return v !== null && v > 0 && (v < SMALL_GROUP || r.visitors < SMALL_GROUP || isFew(r.by[k]));
  };
  for (const k of ["entries", "exits"] as const) {
    if (!rows.some((r) => hidden(r, k))) continue;
    let pick: PageRow | null = null;
    for (const r of rows) {
      const v = r[k];
      if (v !== null && !hidden(r, k) && v >= SMALL_GROUP && (!pick || v < pick[k]!)) pick = r;
    }
    if (!pick) continue;
    pick[k] = null;
    if (k === "exits") pick.exit_rate = null;
  }
}

const output = answerSchema({
  sort: z.object({ by: z.enum(SORTS), order: z.enum(["desc", "asc"]) }),
  offset: z.number(),
  pages: z.array(page),
  pages_total: z.number().describe("pages in the period (matching the search)"),
});

/** The visitors behind each page's rage clicks, entries and exits (asked under a cohort: its pages are few). */
async function ownVisitors(r: ReturnType<typeof resolve>, rows: PageRow[]): Promise<void> {
  const rage: Filter[] = [
    { field: "event_type", op: "eq", value: "$autocapture" },
    { field: "prop:rage_click", op: "eq", value: "true" },
  ];
  const [raging, entering, exiting] = await Promise.all([
    r.engine.aggregate({ ...r.scope, filters: [...r.scope.filters ?? [], ...rage] }, {
      metrics: ["visitors"],
      breakdown: ["page"],
    }),
    r.engine.aggregate(r.scope, { metrics: ["visitors"], breakdown: ["entry_page"] }),
    r.engine.aggregate(r.scope, { metrics: ["visitors"], breakdown: ["exit_page"] }),
  ]);
  const of = (res: AggregateResult, field: "page" | "entry_page" | "exit_page") =>
    new Map(res.rows.map((g) => [label(g.key[field]), g.metrics.visitors ?? 0]));
  const [rv, nv, xv] = [of(raging, "page"), of(entering, "entry_page"), of(exiting, "exit_page")];
  for (const row of rows) {
    row.by = {
      rage_clicks: rv.get(row.page) ?? 0,
      entries: nv.get(row.page) ?? 0,
      exits: xv.get(row.page) ?? 0,
    };
  }
}

export default defineTool({
  name: "behavior_pages",
  description:
    "Every page of a website or app with views, visitors, engagement time, scroll depth, exit rate, " +
    "rage clicks, entries and exits for a period. Sort by any of them (e.g. exit_rate to find where visits end, " +
    "rage_clicks to find frustration), search by part of the path, and page through with offset (25 at most " +
    "per answer; pages_total says how many there are).",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    sort_by: z.enum(SORTS).optional().describe("default pageviews"),
    order: z.enum(["desc", "asc"]).optional().describe("default desc"),
    search: z.string().min(1).max(200).optional().describe("part of the path, case-insensitive"),
    limit: limitInput.optional(),
    offset: offsetInput.optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const filters: Filter[] = input.search
      ? [{ field: "page", op: "contains", value: pathPiece(input.search) }] // "über" finds "/%C3%BCber-uns"
      : [];
    const r = resolve(ctx, { ...input, filters });
    const by = input.sort_by ?? "pageviews";
    const order = input.order ?? "desc";
    const offset = input.offset ?? 0, limit = input.limit ?? 25;
    // under a cohort the whole list is read, for the complements (a cohort's pages are few)
    const whole = ctx.cohort !== null;
    const res = await r.engine.aggregate(r.scope, {
      metrics: METRICS,
      breakdown: ["page"],
      sort: { by: by === "visitors" ? "viewers" : by, desc: order === "desc" },
      ...(whole ? {} : { limit, offset }),
    });
    const rows: PageRow[] = res.rows.map((row) => {
      const m = row.metrics;
      const visitors = m.viewers ?? 0;
      return {
        page: label(row.key.page),
        pageviews: m.pageviews ?? 0,
        visitors,
        engagement_time_s: guardedTime(m.engagement_time_s ?? null, visitors),
        scroll_depth_percent: round(m.scroll_depth_percent, 1),
        exit_rate: rate(m.exit_rate),
        rage_clicks: m.rage_clicks ?? 0,
        entries: m.entries ?? 0,
        exits: m.exits ?? 0,
        by: { rage_clicks: 0, entries: 0, exits: 0 },
      };
    });
    if (whole) {
      await ownVisitors(r, rows);
      withholdComplements(rows);
    }
    const pages: z.infer<typeof page>[] = (whole ? rows.slice(offset, offset + limit) : rows).map((
      { by, ...x },
    ) =>
      whole ? { ...x, ...Object.fromEntries(OWN.map((k) => [k, isFew(by[k]) ? FEWER_THAN_5 : x[k]])) } : x
    );
    return {
      scope: r.answerScope,
      sort: { by, order },
      offset,
      pages,
      pages_total: res.total_rows,
      notices: pages.some((x) => OWN.some((k) => x[k] === FEWER_THAN_5)) ? [SMALL_GROUP_NOTICE] : [],
    };
  },
});
