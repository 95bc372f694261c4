import { z } from "zod";
import { groupCount, groupParts, groupRate, groupSize, notACount } from "../lib/answers/group_counts.ts";
import {
  answerSchema,
  cohortInput,
  compare,
  compared,
  pageInput,
  periodInput,
  touchpointInput,
} from "../lib/answers/schema.ts";
import {
  type AggregateResult,
  ENGAGED_MIN_MS,
  type HitScope,
  isEngagedSession,
  PASSIVE_EVENTS,
  type Row,
  type Scope as EngineScope,
  type SessionSeq,
} from "../lib/query/api.ts";
import { isAiCategory } from "../lib/crawl/classify.ts";
import type { CrawlerCategory } from "../lib/store/records.ts";
import { guardedTime, isFew } from "../lib/answers/privacy.ts";
import { urlPath } from "../lib/url_path.ts";
import { byKey, label, rate, resolve, round } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

const TOP = 10;

export const ENGAGED_MIN_S = ENGAGED_MIN_MS / 1000;

/**
 * An engaged session lasted 10 s or more, saw 2+ pages, or had an interaction (a click or a custom event);
 * the engine's `engaged_visitors` metric counts visitors with such a session by the same rule.
 */
export function isEngaged(s: SessionSeq): boolean {
  const pageviews = s.steps.filter((x) => x.event_type === "$pageview").length;
  return isEngagedSession(s.end - s.start, pageviews, s.steps.some((x) => !PASSIVE_EVENTS.has(x.event_type)));
}

export function engagedVisitors(sessions: SessionSeq[]): number {
  return new Set(sessions.filter(isEngaged).map((s) => s.visitor)).size;
}

const ranked = z.object({
  name: z.string(),
  visitors: groupSize(z.number()),
  previous_visitors: groupCount("visitors", z.number().nullable()),
});
/** A list of the visitors split one way each (a source, country or device per visitor): its whole is `visitors`. */
const splitVisitors = () =>
  groupParts((a) => {
    const v = a.visitors as { value: unknown; previous: unknown };
    return { visitors: v.value, previous_visitors: v.previous };
  }, z.array(ranked));

const output = answerSchema({
  visitors: groupSize(compared),
  // visitors less engaged visitors are the ones who did not engage (one pageview, under 10 s: the bounces,
  // mostly): where they are 1 to 4 under a cohort, the engaged count is withheld (as the bounce rate is)
  engaged_visitors: groupCount("visitors", compared, { partOf: "visitors" }),
  sessions: groupCount("visits", compared),
  pageviews: groupCount("events", compared),
  views_per_session: groupRate(["pageviews", "sessions"], compared),
  bounce_rate: groupRate(["sessions"], compared).describe("share 0-1 of sessions with at most one pageview"),
  session_duration_s: compared.describe("mean session duration in seconds; null under 5 visitors"),
  // each pageview is of one page: the pages split `pageviews` (their visitors overlap, so only pageviews fold)
  top_pages: groupParts(
    (a) => ({ pageviews: (a.pageviews as { value: unknown }).value }),
    // ranked by pageviews, so pageviews come first in each item (a reader took the list as ranked by visitors)
    z.array(
      z.object({ name: z.string(), pageviews: groupCount("events", z.number()) }).extend(
        ranked.omit({ name: true }).shape,
      ),
    ),
  ),
  top_pages_total: z.number(),
  sources: splitVisitors(),
  sources_total: z.number(),
  countries: splitVisitors(),
  countries_total: z.number(),
  devices: splitVisitors(),
  devices_total: z.number(),
  bots_and_ai_agents: z.object({
    // bots and AI agents are not visitors: no saved cohort holds them, and rule 5 is about people
    bot_events: notACount(compared).describe(
      "events sent through the web SDK by bots (by their user agent or automation signs; not verified)",
    ),
    claimed_ai_agent_events: notACount(compared).describe(
      "events sent through the web SDK whose user agent claims an AI agent: a claim anyone holding the public " +
        "key can send, never counted as AI agent visits (those are ai_crawler_requests)",
    ),
    crawler_requests: compared.describe(
      "crawler requests reported by the server SDK (spoofed left out); null under a saved cohort, which does " +
        "not narrow them",
    ),
    ai_crawler_requests: compared.describe("null under a saved cohort"),
  }),
  top_agents: z.array(z.object({ crawler: z.string(), kind: z.string(), requests: z.number() })).describe(
    "empty under a saved cohort",
  ),
  top_agents_total: z.number(),
  data_quality: z.object({
    dropped_events: groupCount("events", compared).describe(
      "events of the counted sessions that the web SDK numbered but that never arrived (sequence gaps inside " +
        "page loads, across batches); human traffic only. Under a saved cohort, withheld (null) where any were " +
        "lost: the visitors who lost them may be 1 to 4",
    ),
    note: z.string(),
  }),
});

const HEAD = [
  "visitors",
  "engaged_visitors",
  "sessions",
  "pageviews",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
] as const;
const lists = [
  // a page's visitors are the ones who viewed it (events sent from a page do not make its visitors)
  { metrics: ["pageviews", "viewers"], breakdown: ["page"] },
  { metrics: ["visitors"], breakdown: ["source"] },
  { metrics: ["visitors"], breakdown: ["country"] },
  { metrics: ["visitors"], breakdown: ["device_type"] },
] as const;

function ranking(cur: AggregateResult, prev: AggregateResult | null, field: string) {
  const before = prev ? byKey(prev.rows, field) : null;
  const visitors = field === "page" ? "viewers" : "visitors";
  return cur.rows.slice(0, TOP).map((r: Row) => ({
    name: label(r.key[field]),
    ...(field === "page" ? { pageviews: r.metrics.pageviews ?? 0 } : {}),
    visitors: r.metrics[visitors] ?? 0,
    previous_visitors: before ? (before.get(String(r.key[field]))?.metrics[visitors] ?? 0) : null,
  }));
}

export default defineTool({
  name: "behavior_overview",
  description: "A website's or app's headline numbers for a period against the previous period of the same " +
    "length: visitors, engaged visitors, sessions, pageviews, bounce rate, session duration, top pages, sources, " +
    "countries and devices, and bots and AI agents. Use it first for 'how is the site doing' questions; " +
    "follow with behavior_pages, behavior_sources or behavior_trends for detail. Optional `page` limits the " +
    "numbers, crawler requests included, to that page.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    page: pageInput.optional(),
  })
    .strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, input);
    // With `page`, the figures are about the visitors and sessions who viewed it: an event sent from the page
    // without viewing it (a click, a custom event) does not make a visitor of it, as for a page's visitors
    // everywhere. Bots' events and crawler requests below still count every event on the page.
    const people = (s: EngineScope): EngineScope =>
      input.page
        ? { ...s, filters: [...(s.filters ?? []), { field: "event_type", op: "eq", value: "$pageview" }] }
        : s;
    const ask = [
      { metrics: [...HEAD, "dropped_events" as const] },
      ...lists.map((l) => ({ ...l, metrics: [...l.metrics], breakdown: [...l.breakdown] })),
    ];
    const [cur, prev] = await Promise.all([
      r.engine.aggregateMany(people(r.scope), ask),
      r.previous ? r.engine.aggregateMany(people(r.previous), ask) : Promise.resolve(null),
    ]);
    // Under a saved cohort, the rate times the sessions would tell 1 to 4 bounced sessions (or 1 to 4 that
    // went on): withheld then, as a conversion rate is beside a small count of conversions (rule 5).
    const bounceRate = (t: AggregateResult["totals"]) => {
      const sessions = t.sessions ?? 0, bounced = Math.round((t.bounce_rate ?? 0) * sessions);
      return ctx.cohort && (isFew(bounced) || isFew(sessions - bounced)) ? null : rate(t.bounce_rate);
    };
    const head = (m: (typeof HEAD)[number], digits: number) =>
      compare(
        round(cur[0].totals[m] ?? null, digits),
        prev ? round(prev[0].totals[m] ?? null, digits) : null,
      );

    // Automated traffic: agents that ran the web SDK, and crawler hits the server SDK reported.
    const bots = async (s: typeof r.scope | null) =>
      s
        ? await r.engine.aggregate({ ...s, traffic: ["bot", "ai_agent"] }, {
          metrics: ["events"],
          breakdown: ["traffic"],
        })
        : null;
    // A saved cohort is of visitors: it does not narrow crawler requests, which are left out under one (a
    // figure of the whole site beside the cohort's would read as the cohort's).
    const crawlersLeftOut = ctx.cohort !== null;
    const hits = async (s: typeof r.scope | null) => {
      if (!s || crawlersLeftOut) return null;
      const hs: HitScope = {
        org: s.org,
        env: s.env,
        touchpoint: s.touchpoint,
        from: s.from,
        to: s.to,
        timezone: s.timezone,
      };
      hs.filters = [{ field: "verification", op: "neq", value: "spoofed" }];
      // `page` narrows crawler requests too, as it narrows every other figure of the answer.
      if (input.page) hs.filters.push({ field: "page", op: "eq", value: urlPath(input.page) });
      return await r.engine.hitsAggregate(hs, { metrics: ["requests"], breakdown: ["category", "crawler"] });
    };
    const [webNow, webBefore, hitsNow, hitsBefore] = await Promise.all([
      bots(r.scope),
      bots(r.previous),
      hits(r.scope),
      hits(r.previous),
    ]);
    const sumWeb = (a: AggregateResult | null, kind: string) =>
      a
        ? a.rows.filter((x) => x.key.traffic === kind).reduce((n, x) => n + (x.metrics.events ?? 0), 0)
        : null;
    const sumHits = (a: Awaited<ReturnType<typeof hits>>, aiOnly: boolean) =>
      a
        ? a.rows.filter((x) => !aiOnly || isAiCategory(x.key.category as CrawlerCategory))
          .reduce((n, x) => n + (x.metrics.requests ?? 0), 0)
        : null;
    // Top agents are the crawlers the server SDK reported (their addresses checked): a crawler's name in the
    // agent of an event sent through the public web endpoint is only a claim, counted apart above.
    const agents = new Map<string, { crawler: string; kind: string; requests: number }>();
    for (const x of hitsNow?.rows ?? []) {
      const k = label(x.key.crawler);
      const kind = isAiCategory(x.key.category as CrawlerCategory) ? "ai_agent" : "bot";
      const a = agents.get(k) ?? { crawler: k, kind, requests: 0 };
      a.requests += x.metrics.requests ?? 0;
      agents.set(k, a);
    }
    const topAgents = [...agents.values()].sort((a, b) =>
      b.requests - a.requests || a.crawler.localeCompare(b.crawler)
    );

    const claimedAi = compare(sumWeb(webNow, "ai_agent"), sumWeb(webBefore, "ai_agent"));
    // Under a saved cohort, dropped events are withheld (null) where there are any: they come from the few
    // visitors whose page loads lost some, and the engine does not count those visitors, so 1 to 4 of them may
    // stand behind the figure (0 tells of no one).
    const dropped = (t: AggregateResult["totals"]) => {
      const n = t.dropped_events ?? 0;
      return ctx.cohort !== null && n > 0 ? null : n;
    };
    const notices = claimedAi.value
      ? [
        `${claimedAi.value} events sent through the web SDK claim an AI agent by their user agent; the claim is ` +
        "not verified, so they are not counted as AI agent visits",
      ]
      : [];
    if (crawlersLeftOut) {
      notices.push(
        "crawler requests and top agents are left out under a saved cohort: a cohort is of visitors and does " +
          "not narrow crawler requests; ask without the cohort for them",
      );
    }

    return {
      scope: r.answerScope,
      visitors: head("visitors", 0),
      engaged_visitors: compare(
        cur[0].totals.engaged_visitors ?? 0,
        prev ? prev[0].totals.engaged_visitors ?? 0 : null,
      ),
      sessions: head("sessions", 0),
      pageviews: head("pageviews", 0),
      views_per_session: head("views_per_session", 2),
      bounce_rate: compare(bounceRate(cur[0].totals), prev ? bounceRate(prev[0].totals) : null),
      // Average times need 5 visitors behind them (answer rule 5), in this period and the one before.
      session_duration_s: compare(
        guardedTime(cur[0].totals.session_duration_s ?? null, cur[0].totals.visitors ?? 0),
        prev ? guardedTime(prev[0].totals.session_duration_s ?? null, prev[0].totals.visitors ?? 0) : null,
      ),
      top_pages: ranking(
        cur[1],
        prev?.[1] ?? null,
        "page",
      ) as (z.infer<typeof ranked> & { pageviews: number })[],
      top_pages_total: cur[1].total_rows,
      sources: ranking(cur[2], prev?.[2] ?? null, "source"),
      sources_total: cur[2].total_rows,
      countries: ranking(cur[3], prev?.[3] ?? null, "country"),
      countries_total: cur[3].total_rows,
      devices: ranking(cur[4], prev?.[4] ?? null, "device_type"),
      devices_total: cur[4].total_rows,
      bots_and_ai_agents: {
        bot_events: compare(sumWeb(webNow, "bot"), sumWeb(webBefore, "bot")),
        claimed_ai_agent_events: claimedAi,
        crawler_requests: compare(sumHits(hitsNow, false), sumHits(hitsBefore, false)),
        ai_crawler_requests: compare(sumHits(hitsNow, true), sumHits(hitsBefore, true)),
      },
      top_agents: topAgents.slice(0, TOP),
      top_agents_total: topAgents.length,
      data_quality: {
        dropped_events: compare(dropped(cur[0].totals), prev ? dropped(prev[0].totals) : null),
        note:
          "Events lost between the browser and us (network errors, closed tabs): the figures above miss about " +
          "this many. A lower bound: losses before the first or after the last event that arrived are not seen.",
      },
      notices,
    };
  },
});
