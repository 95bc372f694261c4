/**
 * The crawler findings the two crawler tools add to their answers, in one structured shape each: robots.txt
 * violations and spoofed agents (behavior_crawler_access), crawl-to-referral (behavior_crawl_coverage).
 * The figures come from lib/crawl/; this file turns them into answer sections and says what was left out.
 */
import { z } from "zod";
import type { ReferralFindings } from "../lib/crawler_findings/referral.ts";
import type { ViolationFindings } from "../lib/crawler_findings/robots_violations.ts";
import type { SpoofedFinding } from "../lib/crawler_findings/spoofed.ts";
import { rate } from "./common.ts";

const iso = (t: number | null) => t === null || !Number.isFinite(t) ? null : new Date(t).toISOString();
const EXAMPLES = 5;

export const violationsSchema = z.object({
  judged_from: z.string().nullable().describe(
    "when robots.txt was first fetched; requests before it are not judged",
  ),
  robots_versions: z.array(z.object({
    from: z.string().describe("first fetch that saw this version"),
    to: z.string().nullable().describe("first fetch that saw the next version; null: still in force"),
    state: z.enum(["rules", "allow_all", "unknown"]),
    status: z.number().nullable(),
  })).describe("robots.txt versions in force during the period, oldest first"),
  robots_versions_total: z.number(),
  crawlers: z.array(z.object({
    crawler: z.string(),
    vendor: z.string().nullable(),
    category: z.string(),
    requests: z.number().describe(
      "requests from verified addresses for pages the rules of the time disallowed",
    ),
    pages: z.number(),
    example_pages: z.array(z.string()),
    first_seen_at: z.string().nullable(),
    last_seen_at: z.string().nullable(),
  })),
  crawlers_total: z.number(),
  pages: z.array(z.object({
    page: z.string(),
    requests: z.number(),
    crawlers: z.array(z.string()),
  })),
  pages_total: z.number(),
  not_judged: z.object({
    before_first_fetch: z.number().describe(
      "verified requests for pages before robots.txt was first fetched",
    ),
    unverifiable_or_pending: z.number().describe("requests for pages whose sender is not known for sure"),
    spoofed: z.number().describe("requests for pages from addresses that failed the crawler's check"),
  }),
});

export function violationsSection(f: ViolationFindings, from: number, to: number) {
  const inPeriod = f.versions.map((v, i) => ({ v, next: f.versions[i + 1]?.since ?? null }))
    .filter(({ v, next }) => v.since < to && (next === null || next > from));
  return {
    judged_from: iso(f.judged_from),
    robots_versions: inPeriod.map(({ v, next }) => ({
      from: iso(v.since)!,
      to: iso(next),
      state: v.state,
      status: v.status,
    })),
    robots_versions_total: inPeriod.length,
    crawlers: f.crawlers.map((c) => ({
      crawler: c.crawler,
      vendor: c.vendor,
      category: c.category,
      requests: c.requests,
      pages: c.pages.length,
      example_pages: c.pages.slice(0, EXAMPLES),
      first_seen_at: iso(c.first_seen_at),
      last_seen_at: iso(c.last_seen_at),
    })),
    crawlers_total: f.crawlers.length,
    pages: f.pages.map((p) => ({ ...p, crawlers: p.crawlers.slice(0, 25) })),
    pages_total: f.pages.length,
    not_judged: f.not_judged,
  };
}

/** What an answer says about the violations beside the figures. */
export function violationNotices(f: ViolationFindings): string[] {
  const out: string[] = [];
  if (f.judged_from === null) {
    out.push("robots.txt violations: robots.txt has not been fetched yet, so no request could be judged");
  }
  const n = f.not_judged;
  if (n.unverifiable_or_pending || n.spoofed) {
    out.push(
      `robots.txt violations count verified crawlers only: ${n.unverifiable_or_pending} unverifiable or ` +
        `not yet checked and ${n.spoofed} spoofed requests for pages were not judged (who sent them is not known)`,
    );
  }
  if (n.before_first_fetch) {
    out.push(
      `${n.before_first_fetch} verified requests came before robots.txt was first fetched: not judged`,
    );
  }
  return out;
}

export const spoofedSchema = z.array(z.object({
  crawler: z.string().describe("the crawler the user agent claims to be"),
  vendor: z.string().nullable(),
  category: z.string(),
  requests_claiming_name: z.number().describe(
    "all requests whose user agent claimed this crawler in the period, spoofed included: " +
      "spoofed_requests + requests_not_spoofed",
  ),
  spoofed_requests: z.number().describe("of those, requests whose address failed the vendor's check"),
  requests_not_spoofed: z.number().describe(
    "the rest (verified, unverifiable or not yet checked): the crawler's `requests` in the crawlers list",
  ),
  share: z.number().nullable().describe("spoofed_requests / requests_claiming_name, 0-1"),
  pages: z.number().describe("distinct pages the spoofed requests got"),
  first_seen_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
}));

export function spoofedSection(list: SpoofedFinding[]) {
  // one order for the JSON and the text: what the name got, then how it splits, so the figures add up as read
  return list.map((s) => ({
    crawler: s.crawler,
    vendor: s.vendor,
    category: s.category,
    requests_claiming_name: s.requests,
    spoofed_requests: s.spoofed_requests,
    requests_not_spoofed: s.requests - s.spoofed_requests,
    share: s.requests ? rate(s.spoofed_requests / s.requests) : null,
    pages: s.pages,
    first_seen_at: iso(s.first_seen_at),
    last_seen_at: iso(s.last_seen_at),
  }));
}

export const referralSchema = z.object({
  vendors: z.array(z.object({
    vendor: z.string(),
    answer_engines: z.array(z.string()).describe("the vendor's answer engines that sent visitors"),
    training_reads: z.number(),
    search_reads: z.number(),
    user_triggered_reads: z.number(),
    training_pages: z.number().describe("distinct pages its training crawlers read"),
    search_pages: z.number(),
    user_triggered_pages: z.number(),
    ai_reads: z.number().describe("page reads by the vendor's AI crawlers (spoofed left out)"),
    search_index_reads: z.number().describe(
      "page reads by the vendor's search engine crawler, not in the ratio",
    ),
    pages_read: z.number(),
    referred_visitors: z.number().describe("visitors its answer engines sent (AI Assistant channel)"),
    pages_referred_to: z.number(),
    reads_per_referred_visitor: z.number().nullable().describe(
      "ai_reads / referred_visitors; null: none sent",
    ),
    sends_visitors: z.boolean(),
  })),
  vendors_total: z.number(),
  pages: z.array(z.object({
    page: z.string(),
    vendor: z.string(),
    ai_reads: z.number(),
    referred_visitors: z.number(),
    reads_per_referred_visitor: z.number().nullable(),
  })).describe("pages by AI reads, per vendor"),
  pages_total: z.number(),
  read_never_referred: z.array(z.object({ page: z.string(), vendor: z.string(), ai_reads: z.number() }))
    .describe("pages a vendor's crawlers read most that its answer engines never sent a visitor to"),
  read_never_referred_total: z.number(),
});

const perVisitor = (reads: number, visitors: number) =>
  visitors ? Math.round(reads / visitors * 10) / 10 : null;

export function referralSection(f: ReferralFindings) {
  const never = f.pages.filter((p) => p.ai_reads > 0 && p.referred_visitors === 0);
  return {
    vendors: f.vendors.map((v) => ({
      vendor: v.vendor,
      answer_engines: v.answer_engines,
      training_reads: v.reads.training,
      search_reads: v.reads.search,
      user_triggered_reads: v.reads.user_triggered,
      training_pages: v.pages.training,
      search_pages: v.pages.search,
      user_triggered_pages: v.pages.user_triggered,
      ai_reads: v.ai_reads,
      search_index_reads: v.search_index_reads,
      pages_read: v.pages_read,
      referred_visitors: v.referred_visitors,
      pages_referred_to: v.pages_referred_to,
      reads_per_referred_visitor: perVisitor(v.ai_reads, v.referred_visitors),
      sends_visitors: v.referred_visitors > 0,
    })),
    vendors_total: f.vendors.length,
    pages: f.pages.map((p) => ({
      ...p,
      reads_per_referred_visitor: perVisitor(p.ai_reads, p.referred_visitors),
    })),
    pages_total: f.pages.length,
    read_never_referred: never.map(({ page, vendor, ai_reads }) => ({ page, vendor, ai_reads })),
    read_never_referred_total: never.length,
  };
}
