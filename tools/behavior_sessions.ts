import { z } from "zod";
import { groupCount, notACount } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, pageInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import type { Engine, Filter, Scope, SessionSeq } from "../lib/query/api.ts";
import { exhaustedMessage } from "../lib/usage/allowance.ts";
import { FEWER_THAN_5, isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import { SMALL_GROUP_NOTICE } from "../lib/answers/small_groups.ts";
import { OTHER } from "../lib/answers/fold_list.ts";
import { resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const MAX_PAGES_LISTED = 10;

const COHORT_VISITS_WITHHELD =
  "under a saved cohort, visits are listed only when 5 or more of its visitors came in the period";

const visit = z.object({
  started_at: z.string().describe("start, to the minute"),
  duration_s: z.number(),
  entry_page: z.string().nullable(),
  exit_page: z.string().nullable(),
  // one visit's own figures, not a group's: a visit is shown only when its group has 5+ visitors
  pages_seen: notACount(z.number()).describe("pageviews in the visit"),
  pages: z.array(z.string()).describe(
    `the pages in order, consecutive repeats merged, at most ${MAX_PAGES_LISTED}`,
  ),
  events: notACount(z.number()),
  source: z.string(),
  channel: z.string(),
  country: z.string().nullable(),
  device: z.string(),
});

const output = answerSchema({
  sessions: z.array(visit),
  sessions_total: groupCount("visits", z.union([z.number(), z.literal(FEWER_THAN_5)])).describe(
    "visits in the period matching the filters",
  ),
});

/** One visit as shown: what happened and where it came from, never who. */
export function describeVisit(s: SessionSeq) {
  const views = s.steps.filter((x) => x.event_type === "$pageview").map((x) => x.page);
  const pages: string[] = [];
  for (const p of views) if (pages[pages.length - 1] !== p) pages.push(p);
  const minute = Math.floor(s.start / 60_000) * 60_000;
  return {
    started_at: new Date(minute).toISOString(),
    duration_s: Math.round((s.end - s.start) / 1000),
    entry_page: views[0] ?? null,
    exit_page: views[views.length - 1] ?? null,
    pages_seen: views.length,
    pages: pages.slice(0, MAX_PAGES_LISTED),
    events: s.steps.length,
    source: s.source,
    channel: s.channel,
    country: s.country,
    device: s.device_type,
  };
}

export default defineTool({
  name: "behavior_sessions",
  description:
    "Individual recent visits, only when the user asks for examples: time, duration, entry and exit " +
    "page, pages seen, source, channel, country and device of each visit, newest first, at most 25, never who " +
    "the visitor was. Narrow with `page` (visits that saw it), `source`, `country` or `device`. Each visit " +
    "shown counts toward the monthly allowance of individual items; prefer the other tools for insights.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional().describe("default last_7_days"),
    page: pageInput.optional(),
    source: z.string().min(1).max(200).optional(),
    country: z.string().length(2).optional().describe("ISO 3166-1 alpha-2, e.g. DE"),
    device: z.enum(["desktop", "mobile", "tablet", "other"]).optional(),
    limit: z.number().int().min(1).max(25).optional().describe("visits to show, default 10"),
  }).strict(),
  output,
  async run(ctx, input) {
    const filters: Filter[] = [];
    if (input.source) filters.push({ field: "source", op: "eq", value: input.source });
    if (input.country) filters.push({ field: "country", op: "eq", value: input.country.toUpperCase() });
    if (input.device) filters.push({ field: "device_type", op: "eq", value: input.device });
    const r = resolve(ctx, { ...input, defaultPeriod: "last_7_days", filters });
    const limit = input.limit ?? 10;
    // without a cohort the visits are asked beside their count (shown only as far as the allowance takes):
    // the two reads overlap; under a cohort they wait, as a small group shows none
    const early = ctx.cohort ? null : r.engine.sessions(r.scope, { limit });
    early?.catch(() => {}); // a failure is thrown where it is awaited
    const total = await r.engine.aggregate(r.scope, {
      metrics: ctx.cohort ? ["sessions", "visitors"] : ["sessions"],
    });
    const sessions = total.totals.sessions ?? 0;
    const notices: string[] = [];
    // under a saved cohort, visits are examples of a group: shown (and their number told) only at 5+ visitors
    const visitors = total.totals.visitors ?? 0;
    const small = ctx.cohort !== null && isFew(visitors);
    if (small) notices.push(SMALL_GROUP_NOTICE, COHORT_VISITS_WITHHELD);
    const wanted = small ? 0 : Math.min(limit, sessions);
    const allowed = wanted > 0 ? await ctx.takeItems(wanted) : 0;
    if (allowed < wanted) {
      notices.push(exhaustedMessage("individual_items", ctx.limits, ctx.now, ctx.org.timezone));
    }
    // the newest `limit` sessions begin with the newest `allowed`
    // under a cohort, the values 1 to 4 of its visitors share are asked beside the visits
    const fewAsked = ctx.cohort && allowed > 0 ? smallValues(r.engine, r.scope) : null;
    fewAsked?.catch(() => {}); // a failure is thrown where it is awaited
    const seqs = allowed > 0 ? (await (early ?? r.engine.sessions(r.scope, { limit: allowed }))) : [];
    const newest = [...seqs].sort((a, b) => b.start - a.start).slice(0, allowed);
    const visits = newest.map(describeVisit);
    if (fewAsked) {
      // a visit's values name its visitor's group: a value 1 to 4 of the cohort's visitors share would tell
      // that group (the tool narrowed to it answers "fewer than 5"), so it reads "(other)"
      const few = await fewAsked;
      for (const v of visits) {
        if (v.country !== null && few.country.has(v.country)) v.country = OTHER;
        if (few.source.has(v.source)) v.source = OTHER;
        if (few.channel.has(v.channel)) v.channel = OTHER;
        if (few.device_type.has(v.device)) v.device = OTHER;
        v.pages = v.pages.map((p) => few.page.has(p) ? OTHER : p);
        if (v.entry_page !== null && few.page.has(v.entry_page)) v.entry_page = OTHER;
        if (v.exit_page !== null && few.page.has(v.exit_page)) v.exit_page = OTHER;
      }
    }
    return {
      scope: r.answerScope,
      sessions: visits,
      sessions_total: small ? FEWER_THAN_5 : sessions,
      notices,
    };
  },
});

const SHOWN_FIELDS = ["country", "source", "channel", "device_type", "page"] as const;
/** A page's visitors are its viewers (as everywhere); the other fields' are their visitors. */
const visitorsOf = (f: (typeof SHOWN_FIELDS)[number]) =>
  f === "page" ? "viewers" as const : "visitors" as const;

/** Per field a visit shows, the values of 1 to 4 visitors in the scope (a page's: its viewers). */
async function smallValues(
  engine: Engine,
  scope: Scope,
): Promise<Record<(typeof SHOWN_FIELDS)[number], Set<string | null>>> {
  const lists = await engine.aggregateMany(
    scope,
    SHOWN_FIELDS.map((f) => ({ metrics: [visitorsOf(f)], breakdown: [f] })),
  );
  return Object.fromEntries(SHOWN_FIELDS.map((f, i) => {
    const m = visitorsOf(f);
    const few = lists[i].rows.filter((x) => (x.metrics[m] ?? 0) > 0 && (x.metrics[m] ?? 0) < SMALL_GROUP);
    return [f, new Set(few.map((x) => x.key[f] as string | null))];
  })) as Record<(typeof SHOWN_FIELDS)[number], Set<string | null>>;
}
