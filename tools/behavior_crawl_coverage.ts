import { z } from "zod";
import { answerSchema, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { crawlerNamed, isAiCategory } from "../lib/crawl/classify.ts";
import { pageOfPath } from "../lib/crawl/paths.ts";
import type { HitScope } from "../lib/query/api.ts";
import type { CrawlerCategory } from "../lib/store/records.ts";
import { label, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";
import { invalid } from "../lib/errors.ts";
import { crawlToReferral } from "../lib/crawler_findings/referral.ts";
import { referralSchema, referralSection } from "../toolkit/crawler_findings.ts";

export const STALE_AFTER_DAYS = 14;
/** How far back "last read" and "never read" look: 90 days, or the plan's history when shorter. */
export const LOOKBACK_DAYS = 90;
const DAY = 86_400_000;

const output = answerSchema({
  lookback_days: z.number(),
  stale_after_days: z.number(),
  summary: z.object({
    known_pages: z.number().describe(
      "pages people viewed in the period or a crawler got (spoofed left out); paths crawlers only asked for " +
        "and never got (a 404, a redirect) are no pages",
    ),
    pages_read_by_search: z.number().describe("known pages a search engine crawler read within the lookback"),
    pages_read_by_ai_verified: z.number().describe(
      "AI visibility: pages read in the period by AI crawlers whose address checked out",
    ),
    pages_never_read: z.number().describe(
      "pages people viewed in the period that no crawler read in the lookback",
    ),
    stale_pages: z.number(),
  }),
  crawlers: z.array(z.object({
    crawler: z.string(),
    vendor: z.string().nullable(),
    category: z.string(),
    ai: z.boolean(),
    requests: z.number(),
    pages_read: z.number().describe("distinct pages the crawler got (spoofed hits left out)"),
    verified_pages: z.number().describe("of those, read from a verified address (what AI visibility counts)"),
    last_read_at: z.string().nullable(),
  })),
  crawlers_total: z.number(),
  pages_never_read: z.array(z.object({ page: z.string(), pageviews: z.number(), visitors: z.number() }))
    .describe(
      "pages people viewed in the period (pageviews above 0) that no crawler read in the lookback, most visited first",
    ),
  pages_never_read_total: z.number(),
  stale_pages: z.array(z.object({ page: z.string(), last_read_at: z.string(), days_since: z.number() })),
  stale_pages_total: z.number(),
  site_files: z.array(z.object({ file: z.string(), requests: z.number(), crawlers: z.number() })),
  site_files_total: z.number(),
  crawl_to_referral: referralSchema.describe(
    "per AI vendor and page: page reads by its crawlers against visitors its answer engines sent in the period",
  ),
});

export default defineTool({
  name: "behavior_crawl_coverage",
  description: "Which search and AI crawlers read a website in a period and how many pages each read (AI " +
    "visibility counts only verified crawler addresses; spoofed user agents are left out everywhere), pages " +
    "people visit that no crawler has read in the last 90 days (pages with pageviews in the period; a page " +
    "is its path, so a hit on /pricing?page=2 read /pricing; paths only crawlers asked for are no pages), stale " +
    `pages not read for ${STALE_AFTER_DAYS} days or more (change with stale_after_days), and reads of site ` +
    "files (robots.txt, llms.txt, sitemaps). Crawl-to-referral per AI vendor and page: reads by its training, " +
    "search and user-triggered crawlers against visitors its answer engines (ChatGPT, Perplexity, Claude, " +
    "Gemini, Copilot, ...) sent, pages read but never visited from it. Pass `crawler` to look at one crawler token.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    period: periodInput.optional().describe("default last_30_days"),
    crawler: z.string().min(1).max(100).optional().describe(
      "one crawler, by its token in any case (GPTBot, gptbot) or one of its user-agent names",
    ),
    stale_after_days: z.number().int().min(1).max(90).optional(),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, {
      ...input,
      defaultPeriod: "last_30_days",
      traffic: "crawlers",
      websitesOnly: true,
    });
    if (r.touchpoint.kind !== "website") {
      throw invalid(
        `${r.touchpoint.name} is an app; crawler figures exist for websites: name a website as touchpoint`,
      );
    }
    const staleDays = input.stale_after_days ?? STALE_AFTER_DAYS;
    const lookbackDays = Math.min(LOOKBACK_DAYS, ctx.limits.history_days);
    const base: HitScope = {
      org: ctx.org.id,
      env: ctx.env,
      touchpoint: r.touchpoint.id,
      from: r.scope.from,
      to: r.scope.to,
      timezone: ctx.org.timezone,
    };
    const notSpoofed = { field: "verification" as const, op: "neq" as const, value: "spoofed" };
    const crawler = input.crawler === undefined ? undefined : crawlerNamed(input.crawler);
    if (crawler === null) {
      throw invalid(
        `crawler: no crawler "${input.crawler}" in the catalog (docs/crawlers.md); ask without it to see which ` +
          "crawlers read the site, and name one of their tokens, e.g. GPTBot",
      );
    }
    const oneCrawler = crawler ? [{ field: "crawler" as const, op: "eq" as const, value: crawler }] : [];
    const hs: HitScope = { ...base, filters: [notSpoofed, ...oneCrawler] };
    const lookback: HitScope = { ...hs, from: Math.max(ctx.now - lookbackDays * DAY, 0), to: ctx.now + 1 };
    const [perCrawler, verified, anyHitPages, readPages, files, views, referral] = await Promise.all([
      r.engine.hitsAggregate(hs, {
        metrics: ["requests", "pages", "last_crawl_at"],
        breakdown: ["crawler", "vendor", "category"],
      }),
      r.engine.hitsAggregate({
        ...hs,
        filters: [...hs.filters!, { field: "verification", op: "eq", value: "verified" }],
      }, { metrics: ["pages"], breakdown: ["crawler", "category", "page"] }),
      // pages a crawler got: a path only asked for (a 404, a redirect, spoofed agents' probes) is no page
      r.engine.hitsAggregate({
        ...base,
        filters: [notSpoofed, { field: "crawled", op: "eq", value: "true" }, ...oneCrawler],
      }, { metrics: ["requests"], breakdown: ["page", "site_file"] }),
      r.engine.hitsAggregate({
        ...lookback,
        filters: [...lookback.filters!, { field: "crawled", op: "eq", value: "true" }],
      }, { metrics: ["last_crawl_at"], breakdown: ["page", "site_file", "category"] }),
      r.engine.hitsAggregate({ ...hs }, { metrics: ["requests"], breakdown: ["site_file", "crawler"] }),
      // pages people viewed: pageviews and viewers (visitors with a pageview) by page, unfiltered, so rollups
      // answer it (an event-type filter beside the page breakdown scanned every event); unviewed pages dropped
      r.engine.aggregate(r.scope, { metrics: ["pageviews", "viewers"], breakdown: ["page"] }),
      crawlToReferral({ engine: r.engine, hits: { ...base, filters: oneCrawler }, events: r.scope }),
    ]);

    // Verified pages per crawler, and pages read by verified AI crawlers (AI visibility).
    const verifiedPages = new Map<string, Set<string>>();
    const aiVerified = new Set<string>();
    for (const row of verified.rows) {
      if ((row.metrics.pages ?? 0) === 0) continue;
      const c = label(row.key.crawler);
      const set = verifiedPages.get(c) ?? new Set<string>();
      const p = pageOfPath(String(row.key.page));
      set.add(p);
      verifiedPages.set(c, set);
      if (isAiCategory(row.key.category as CrawlerCategory)) aiVerified.add(p);
    }
    const crawlers = new Map<string, z.infer<typeof output>["crawlers"][number]>();
    for (const row of perCrawler.rows) {
      const c = label(row.key.crawler);
      const prev = crawlers.get(c);
      const last = row.metrics.last_crawl_at ?? null;
      const category = String(row.key.category);
      crawlers.set(c, {
        crawler: c,
        vendor: (row.key.vendor as string | null) ?? prev?.vendor ?? null,
        category,
        ai: isAiCategory(category as CrawlerCategory),
        requests: (prev?.requests ?? 0) + (row.metrics.requests ?? 0),
        pages_read: Math.max(prev?.pages_read ?? 0, row.metrics.pages ?? 0),
        verified_pages: verifiedPages.get(c)?.size ?? 0,
        last_read_at: last === null ? prev?.last_read_at ?? null : new Date(last).toISOString(),
      });
    }
    const crawlerList = [...crawlers.values()].sort((a, b) =>
      b.pages_read - a.pages_read || b.requests - a.requests || a.crawler.localeCompare(b.crawler)
    );

    // Known pages: visitors' pageviews and pages (not site files) a crawler got in the period.
    const known = new Map<string, { pageviews: number; visitors: number }>();
    for (const row of views.rows) {
      if (!row.metrics.pageviews) continue;
      known.set(String(row.key.page), {
        pageviews: row.metrics.pageviews,
        visitors: row.metrics.viewers ?? 0,
      });
    }
    for (const row of anyHitPages.rows) {
      if (row.key.site_file !== null) continue;
      const p = pageOfPath(String(row.key.page));
      if (!known.has(p)) known.set(p, { pageviews: 0, visitors: 0 });
    }
    const lastRead = new Map<string, number>();
    const searchRead = new Set<string>();
    for (const row of readPages.rows) {
      if (row.key.site_file !== null || row.metrics.last_crawl_at == null) continue;
      const p = pageOfPath(String(row.key.page));
      lastRead.set(p, Math.max(lastRead.get(p) ?? 0, row.metrics.last_crawl_at));
      if (row.key.category === "search_engine") searchRead.add(p);
    }
    // missed pages are pages people visit: a page no crawler read and nobody viewed is nothing missed
    const never = [...known.entries()].filter(([p, v]) => v.pageviews > 0 && !lastRead.has(p))
      .map(([page, v]) => ({ page, ...v }))
      .sort((a, b) => b.visitors - a.visitors || b.pageviews - a.pageviews || a.page.localeCompare(b.page));
    const staleBefore = ctx.now - staleDays * DAY;
    const stale = [...known.keys()].filter((p) => lastRead.has(p) && lastRead.get(p)! < staleBefore)
      .map((page) => ({
        page,
        last_read_at: new Date(lastRead.get(page)!).toISOString(),
        days_since: Math.floor((ctx.now - lastRead.get(page)!) / DAY),
      }))
      .sort((a, b) => b.days_since - a.days_since || a.page.localeCompare(b.page));

    const siteFiles = new Map<string, { file: string; requests: number; crawlers: number }>();
    for (const row of files.rows) {
      if (row.key.site_file === null) continue;
      const f = String(row.key.site_file);
      const s = siteFiles.get(f) ?? { file: f, requests: 0, crawlers: 0 };
      s.requests += row.metrics.requests ?? 0;
      s.crawlers += 1;
      siteFiles.set(f, s);
    }
    const fileList = [...siteFiles.values()].sort((a, b) =>
      b.requests - a.requests || a.file.localeCompare(b.file)
    );

    return {
      scope: r.answerScope,
      lookback_days: lookbackDays,
      stale_after_days: staleDays,
      summary: {
        known_pages: known.size,
        pages_read_by_search: [...known.keys()].filter((p) => searchRead.has(p)).length,
        pages_read_by_ai_verified: aiVerified.size,
        pages_never_read: never.length,
        stale_pages: stale.length,
      },
      crawlers: crawlerList.slice(0, 25),
      crawlers_total: crawlerList.length,
      pages_never_read: never.slice(0, 25),
      pages_never_read_total: never.length,
      stale_pages: stale.slice(0, 25),
      stale_pages_total: stale.length,
      site_files: fileList,
      site_files_total: fileList.length,
      crawl_to_referral: referralSection(referral),
      notices: [],
    };
  },
});
