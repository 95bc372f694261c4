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
import type { AggregateResult, Filter, Metric, MetricValues } from "../lib/query/api.ts";
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

/**
 * A page's visitors are the ones who viewed it: the engine's `viewers` (events on a page count as its events).
 * Engagement time and scroll depth are means over page-leave reports: `reporters` (up to 5) are the visitors
 * behind them, fewer than 5 of whom withhold both, however many viewed the page.
 */
const METRICS: Metric[] = [
  "pageviews",
  "viewers",
  "engagement_time_s",
  "scroll_depth_percent",
  "exit_rate",
  "rage_clicks",
  "entries",
  "exits",
  "reporters",
];

/** Sorts by a figure that may be withheld: the whole list is read and sorted by what it shows. */
const MEANS = new Set<Sort>(["engagement_time_s", "scroll_depth_percent"]);
type Sort = (typeof SORTS)[number];

/** A page's engagement time and scroll depth as shown: withheld (null) under 5 visitors reporting them. */
function means(m: MetricValues): { engagement_time_s: number | null; scroll_depth_percent: number | null } {
  const reporters = m.reporters ?? 0;
  return {
    engagement_time_s: guardedTime(m.engagement_time_s ?? null, reporters),
    scroll_depth_percent: reporters < SMALL_GROUP ? null : round(m.scroll_depth_percent, 1),
  };
}

/**
 * Items sorted by the figure each shows (`shown`: null when withheld), then those withheld, by page, so a
 * withheld figure's hidden value never decides a place (review #18); ties by page.
 */
function byShown<T extends { page: string }>(
  items: T[],
  shown: (x: T) => number | null,
  desc: boolean,
): T[] {
  const values = new Map(items.map((x) => [x, shown(x)]));
  return items.sort((a, b) => {
    const x = values.get(a)!, y = values.get(b)!;
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      return desc ? y - x : x - y;
    }
    return a.page < b.page ? -1 : a.page > b.page ? 1 : 0;
  });
}

/**
 * A page's figure `by` as the answer will show it under a saved cohort (null: withheld or "fewer than 5"): the
 * guard over the answer withholds every figure of a page seen by 1 to 4 visitors, reads a count of 1 to 4 as
 * "fewer than 5", and withholds a rate worked out from one.
 */
function shownUnderCohort(p: z.infer<typeof page>, by: Sort): number | null {
  const few = (v: unknown) => isFew(v) || v === FEWER_THAN_5;
  if (few(p.visitors)) return null;
  const v = p[by];
  if (typeof v !== "number") return null;
  if ((by === "pageviews" || by === "rage_clicks" || by === "entries" || by === "exits") && isFew(v)) {
    return null;
  }
  if (by === "exit_rate" && (few(p.exits) || few(p.pageviews))) return null;
  return v;
}

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
  engagement_time_s: z.number().nullable().describe(
    "mean per page view; withheld (null) under 5 visitors reporting it",
  ),
  scroll_depth_percent: groupRate([], z.number().nullable()).describe(
    "mean scroll depth (0-100) the page was left at; withheld (null) under 5 visitors reporting it",
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
    // under a cohort the whole list is read, for the complements (a cohort's pages are few); sorted by a mean
    // that may be withheld, too, so that withheld means go last whatever they hide
    const whole = ctx.cohort !== null;
    const bySorted = !whole && MEANS.has(by);
    const res = await r.engine.aggregate(r.scope, {
      metrics: METRICS,
      breakdown: ["page"],
      sort: { by: by === "visitors" ? "viewers" : by, desc: order === "desc" },
      ...(whole || bySorted ? {} : { limit, offset }),
    });
    let found = res.rows.map((row) => ({ page: label(row.key.page), row, shown: means(row.metrics) }));
    // (only the page asked is made: a page's visitors are counted when read)
    if (bySorted) {
      found = byShown(found, (x) => x.shown[by as keyof typeof x.shown], order === "desc")
        .slice(offset, offset + limit);
    }
    const rows: PageRow[] = found.map(({ page, row, shown }) => {
      const m = row.metrics;
      return {
        page,
        pageviews: m.pageviews ?? 0,
        visitors: m.viewers ?? 0,
        ...shown,
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
    const shownRows = rows.map(({ by, ...x }) =>
      whole ? { ...x, ...Object.fromEntries(OWN.map((k) => [k, isFew(by[k]) ? FEWER_THAN_5 : x[k]])) } : x
    ) as z.infer<typeof page>[];
    // under a cohort, by what the answer shows once guarded
    const pages = whole
      ? byShown(shownRows, (p) => shownUnderCohort(p, by), order === "desc").slice(offset, offset + limit)
      : shownRows;
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
