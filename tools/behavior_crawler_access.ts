import { z } from "zod";
import { answerSchema, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { catalogEntry, isAiCategory } from "../lib/crawl/classify.ts";
import { ROBOTS_ONLY_TOKENS } from "../lib/crawl/catalog_data.ts";
import type { HitScope } from "../lib/query/api.ts";
import type { CrawlerCategory } from "../lib/store/records.ts";
import { evaluateToken, groupNames, readRobots } from "../lib/crawl/robots.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";
import { invalid } from "../lib/errors.ts";
import { robotsViolations } from "../lib/crawler_findings/robots_violations.ts";
import { spoofedAgents } from "../lib/crawler_findings/spoofed.ts";
import {
  spoofedSchema,
  spoofedSection,
  violationNotices,
  violationsSchema,
  violationsSection,
} from "../toolkit/crawler_findings.ts";

/** Crawlers every answer covers, seen or not: the major search engines and AI crawlers. */
export const MAJOR_CRAWLERS = [
  "Googlebot",
  "bingbot",
  "Applebot",
  "DuckDuckBot",
  "YandexBot",
  "GPTBot",
  "OAI-SearchBot",
  "ChatGPT-User",
  "ClaudeBot",
  "Claude-SearchBot",
  "PerplexityBot",
  "CCBot",
  "Bytespider",
  "meta-externalagent",
  "Amazonbot",
];

/** Tokens only robots.txt knows (no crawler sends them): what they govern, by whom. */
const ROBOTS_ONLY: Record<string, { token: string; vendor: string }> = {
  "google-extended": { token: "Google-Extended", vendor: "Google" },
  "applebot-extended": { token: "Applebot-Extended", vendor: "Apple" },
  "webzio-extended": { token: "Webzio-Extended", vendor: "Webz.io" },
};
/** A robots-only token's entry; an input such as "constructor" finds none (never Object.prototype's member). */
const robotsOnlyOf = (lower: string) => (Object.hasOwn(ROBOTS_ONLY, lower) ? ROBOTS_ONLY[lower] : undefined);

const MAX_PATHS = 50;

/** What a crawler may read while no robots.txt has been fetched: not known, never "allowed". */
export const ACCESS_UNKNOWN = "unknown (robots.txt not fetched yet)" as const;

/** Which group of robots.txt rules applies to a crawler, in words a person reads (evaluateToken's `group`). */
const GROUP = {
  own: "its own (a User-agent line names it)",
  "*": "* (for all crawlers)",
  none: "none",
} as const;

const output = answerSchema({
  robots_txt: z.object({
    url: z.string().nullable(),
    outcome: z.enum(["ok", "unavailable", "unreachable", "not_fetched_yet"]),
    status: z.number().nullable(),
    fetched_at: z.string().nullable(),
    rules_from: z.string().nullable().describe("when the rules in force were fetched"),
  }),
  summary: z.object({
    ai_crawlers_blocked: z.number().nullable().describe("null: robots.txt not fetched yet, so not known"),
    ai_crawlers_partly_blocked: z.number().nullable().describe("null: robots.txt not fetched yet"),
    search_crawlers_blocked: z.number().nullable().describe("null: robots.txt not fetched yet"),
    crawlers_with_refusals: z.number(),
  }),
  crawlers: z.array(z.object({
    crawler: z.string(),
    vendor: z.string().nullable(),
    category: z.string(),
    ai: z.boolean(),
    token_used_by: z.enum(["crawler", "robots.txt only"]).describe(
      "crawler: a crawler sends this token in its user agent; robots.txt only: no crawler sends it, robots.txt " +
        "names it to allow or refuse a use (Google-Extended: Google's AI training on what Googlebot reads)",
    ),
    robots_txt_group: z.enum([GROUP.own, GROUP["*"], GROUP.none, ACCESS_UNKNOWN]).describe(
      "which group of robots.txt rules applies to the crawler: its own (a User-agent line names its token), " +
        "the * group for all crawlers, or none (robots.txt has no group for it or for *, or could not be read)",
    ),
    access: z.enum(["allowed", "partly blocked", "blocked", ACCESS_UNKNOWN]).describe(
      `by the robots.txt in force; "${ACCESS_UNKNOWN}" until the first fetch`,
    ),
    home_allowed: z.boolean().nullable().describe("null: robots.txt not fetched yet"),
    paths_checked: z.number().nullable().describe("the home page and the most viewed pages; null: none yet"),
    paths_disallowed: z.number().nullable().describe("null: robots.txt not fetched yet, so not known"),
    disallowed_examples: z.array(z.string()).nullable().describe("null: robots.txt not fetched yet"),
    requests: z.number().describe(
      "requests in the period reported by the server SDK, spoofed left out: verified, unverifiable or not yet " +
        "checked (spoofed_agents gives, per name, all requests claiming it and the spoofed ones; agents that " +
        "ran the web SDK are counted by behavior_overview)",
    ),
  })),
  crawlers_total: z.number(),
  refusals: z.array(z.object({
    crawler: z.string(),
    requests: z.number(),
    refused_401: z.number(),
    refused_403: z.number(),
    refused_429: z.number(),
    failed_5xx: z.number(),
    refused_or_failed_rate: z.number().nullable(),
  })),
  refusals_total: z.number(),
  robots_violations: violationsSchema.describe(
    "verified crawlers that requested pages their token was disallowed from by the robots.txt in force then",
  ),
  spoofed_agents: spoofedSchema.describe(
    "requests whose agent claims a crawler that can be checked and whose address failed the check; per name, " +
      "requests_claiming_name = spoofed_requests + requests_not_spoofed (the crawlers list's requests)",
  ),
  spoofed_agents_total: z.number(),
});

const ACCESS_ORDER = { blocked: 0, "partly blocked": 1, allowed: 2, [ACCESS_UNKNOWN]: 3 } as const;

export default defineTool({
  name: "behavior_crawler_access",
  description:
    "What the site's robots.txt allows each search and AI crawler (including robots-only tokens such " +
    "as Google-Extended and Applebot-Extended, which govern AI training), checked on the home page and the " +
    "site's known pages, and, with the server SDK, requests each crawler got refused (401, 403, 429) or failed " +
    "(5xx) in the period; robots.txt violations (verified crawlers reading pages the robots.txt of the time " +
    "disallowed, per crawler and page) and spoofed agents (a crawler's name from an address that failed its " +
    "check, with the share of that name's requests). robots.txt is fetched every 6 hours, each version kept, " +
    "and read by RFC 9309. Pass `crawler` for one token.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    period: periodInput.optional().describe("for refusals and requests; default last_7_days"),
    crawler: z.string().min(1).max(100).optional().describe("one crawler token, e.g. GPTBot"),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, {
      ...input,
      defaultPeriod: "last_7_days",
      traffic: "crawlers",
      websitesOnly: true,
    });
    if (r.touchpoint.kind !== "website") {
      throw invalid(
        `${r.touchpoint.name} is an app; crawler figures exist for websites: name a website as touchpoint`,
      );
    }
    const host = r.touchpoint.environments[ctx.env]?.domain ?? "localhost";
    const rec = await readRobots(ctx.app.deps.kv, ctx.org.id, r.touchpoint.id, ctx.env);
    const hs: HitScope = {
      org: ctx.org.id,
      env: ctx.env,
      touchpoint: r.touchpoint.id,
      from: r.scope.from,
      to: r.scope.to,
      timezone: ctx.org.timezone,
      filters: [{ field: "verification", op: "neq", value: "spoofed" }],
    };
    const [byStatus, pageViews, violations, spoofed] = await Promise.all([
      r.engine.hitsAggregate(hs, { metrics: ["requests"], breakdown: ["crawler", "status"] }),
      // the most viewed pages: pageviews by page unfiltered (rollups answer it; an event-type filter beside the
      // page breakdown scanned every event) less pages without a view, which sort after all viewed ones
      r.engine.aggregate(r.scope, { metrics: ["pageviews"], breakdown: ["page"], limit: MAX_PATHS }),
      robotsViolations({
        engine: r.engine,
        kv: ctx.app.deps.kv,
        scope: { ...hs, touchpoint: r.touchpoint.id, filters: [] },
        host,
        crawler: input.crawler,
      }),
      spoofedAgents(r.engine, { ...hs, filters: [] }, input.crawler),
    ]);
    const paths = pageViews.rows.filter((x) => (x.metrics.pageviews ?? 0) > 0).map((x) => String(x.key.page));

    const requests = new Map<string, number>();
    const refused = new Map<string, { r401: number; r403: number; r429: number; f5xx: number }>();
    for (const row of byStatus.rows) {
      const c = label(row.key.crawler);
      const n = row.metrics.requests ?? 0;
      requests.set(c, (requests.get(c) ?? 0) + n);
      const st = row.key.status === null ? null : Number(row.key.status);
      const f = refused.get(c) ?? { r401: 0, r403: 0, r429: 0, f5xx: 0 };
      if (st === 401) f.r401 += n;
      if (st === 403) f.r403 += n;
      if (st === 429) f.r429 += n;
      if (st !== null && st >= 500) f.f5xx += n;
      refused.set(c, f);
    }

    // Which tokens: the major ones, those seen, those robots.txt names, robots-only tokens.
    const tokens = new Set<string>([
      ...MAJOR_CRAWLERS,
      ...[...requests.keys()].filter((t) => t !== "unknown"),
    ]);
    for (const lower of ROBOTS_ONLY_TOKENS) tokens.add(robotsOnlyOf(lower)?.token ?? lower);
    if (rec?.body) {
      const byLower = new Map([...tokens].map((t) => [t.toLowerCase(), t]));
      for (const name of groupNames(rec.body)) {
        if (name === "*" || byLower.has(name)) continue;
        const entry = [...MAJOR_CRAWLERS, ...requests.keys()].find((t) => t.toLowerCase() === name);
        tokens.add(entry ?? name);
      }
    }
    let list = [...tokens];
    if (input.crawler) list = list.filter((t) => t.toLowerCase() === input.crawler!.toLowerCase());
    if (input.crawler && list.length === 0) list = [input.crawler];

    const crawlers = list.map((token) => {
      const robotsOnly = robotsOnlyOf(token.toLowerCase());
      const entry = catalogEntry(token);
      const category: CrawlerCategory = robotsOnly ? "ai_training" : entry?.category ?? "other";
      // no robots.txt yet: nothing is known of what it allows (evaluateToken would say "allowed")
      const { group, ...e } = rec ? evaluateToken(rec, token, paths, host) : {
        group: null,
        access: ACCESS_UNKNOWN,
        home_allowed: null,
        paths_checked: null,
        paths_disallowed: null,
        disallowed_examples: null,
      };
      return {
        crawler: token,
        vendor: robotsOnly?.vendor ?? entry?.vendor ?? null,
        category,
        ai: isAiCategory(category),
        token_used_by: robotsOnly ? "robots.txt only" as const : "crawler" as const,
        robots_txt_group: group === null ? ACCESS_UNKNOWN : GROUP[group],
        ...e,
        requests: requests.get(token) ?? 0,
      };
    }).sort((a, b) =>
      ACCESS_ORDER[a.access] - ACCESS_ORDER[b.access] || b.requests - a.requests ||
      a.crawler.localeCompare(b.crawler)
    );

    const refusals = [...refused.entries()]
      .map(([crawler, f]) => {
        const total = requests.get(crawler) ?? 0;
        const bad = f.r401 + f.r403 + f.r429 + f.f5xx;
        return {
          crawler,
          requests: total,
          refused_401: f.r401,
          refused_403: f.r403,
          refused_429: f.r429,
          failed_5xx: f.f5xx,
          refused_or_failed_rate: total ? rate(bad / total) : null,
          bad,
        };
      })
      .filter((x) => x.bad > 0 && (!input.crawler || x.crawler.toLowerCase() === input.crawler.toLowerCase()))
      .sort((a, b) => b.bad - a.bad || a.crawler.localeCompare(b.crawler))
      .map(({ bad: _bad, ...x }) => x);

    const notices: string[] = [];
    if (!rec) {
      notices.push(
        "robots.txt has not been fetched yet; it is fetched every 6 hours. Until then what it allows each " +
          "crawler is unknown: access reads unknown and the blocked and disallowed counts are null",
      );
    } else if (rec.outcome === "unreachable") {
      notices.push(
        rec.body
          ? `robots.txt could not be fetched (${rec.error}); the copy of ${
            new Date(rec.body_fetched_at!).toISOString()
          } applies`
          : `robots.txt could not be fetched (${rec.error}); by RFC 9309 crawlers treat the whole site as disallowed`,
      );
    } else if (rec.outcome === "unavailable") {
      notices.push(`robots.txt answered ${rec.status}: by RFC 9309 everything is allowed`);
    }

    return {
      scope: r.answerScope,
      robots_txt: {
        url: rec?.url ?? `https://${host}/robots.txt`,
        outcome: rec?.outcome ?? "not_fetched_yet" as const,
        status: rec?.status ?? null,
        fetched_at: rec ? new Date(rec.fetched_at).toISOString() : null,
        rules_from: rec?.body_fetched_at ? new Date(rec.body_fetched_at).toISOString() : null,
      },
      summary: {
        ai_crawlers_blocked: rec ? crawlers.filter((c) => c.ai && c.access === "blocked").length : null,
        ai_crawlers_partly_blocked: rec
          ? crawlers.filter((c) => c.ai && c.access === "partly blocked").length
          : null,
        search_crawlers_blocked: rec
          ? crawlers.filter((c) => c.category === "search_engine" && c.access === "blocked").length
          : null,
        crawlers_with_refusals: refusals.length,
      },
      crawlers: crawlers.slice(0, 25),
      crawlers_total: crawlers.length,
      refusals: refusals.slice(0, 25),
      refusals_total: refusals.length,
      robots_violations: violationsSection(violations, r.scope.from, r.scope.to),
      spoofed_agents: spoofedSection(spoofed),
      spoofed_agents_total: spoofed.length,
      notices: [...notices, ...violationNotices(violations)],
    };
  },
});
