/** Findings about crawlers: started or stopped reading the site, and pages people visit that none read. */
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, num } from "./common.ts";
import { shownPath } from "../../url_path.ts";

/** Requests by crawler, from a behavior_crawl_coverage answer; one crawler asked again when the list was cut. */
async function requestsOf(c: FindingContext, answer: Json, period: string, crawler: string): Promise<number> {
  const row = (answer.crawlers as Json[]).find((r) => r.crawler === crawler);
  if (row) return row.requests;
  if (answer.crawlers_total <= answer.crawlers.length) return 0;
  const one = await c.ask("behavior_crawl_coverage", { touchpoint: c.touchpoint.id, period, crawler });
  return (one.crawlers as Json[]).find((r) => r.crawler === crawler)?.requests ?? 0;
}

export async function crawlerFindings(c: FindingContext, now: Json, before: Json): Promise<Finding[]> {
  const t = THRESHOLDS.crawlers;
  const tp = c.touchpoint.id;
  const out: Finding[] = [];
  const vendorOf = new Map<string, string | null>(
    [...before.crawlers, ...now.crawlers].map((r: Json) => [r.crawler, r.vendor]),
  );
  const names = new Set<string>([...now.crawlers, ...before.crawlers].map((r: Json) => r.crawler));
  for (const crawler of names) {
    const [n, b] = await Promise.all([
      requestsOf(c, now, c.period.period, crawler),
      requestsOf(c, before, c.period.previous, crawler),
    ]);
    const vendor = vendorOf.get(crawler);
    const who = vendor ? `${crawler} (${vendor})` : crawler;
    const reproduce = [
      call("behavior_crawl_coverage", { touchpoint: tp, period: c.period.period, crawler }),
      call("behavior_crawl_coverage", { touchpoint: tp, period: c.period.previous, crawler }),
    ];
    if (b === 0 && n >= t.min_requests) {
      out.push({
        kind: "crawler_started",
        claim: `${who} started reading the site: ${num(n)} requests, none the period before.`,
        numbers: { crawler, requests: n, previous: 0 },
        weight: n,
        reproduce,
      });
    } else if (n === 0 && b >= t.min_requests) {
      out.push({
        kind: "crawler_stopped",
        claim: `${who} stopped reading the site: no requests, ${num(b)} the period before.`,
        numbers: { crawler, requests: 0, previous: b },
        weight: b,
        reproduce,
      });
    }
  }
  return out.sort((a, b) => b.weight - a.weight);
}

/** Pages visitors came to that no crawler has read in the coverage lookback (one finding naming a few). */
export function notCrawledFindings(c: FindingContext, coverage: Json): Finding[] {
  const t = THRESHOLDS.not_crawled;
  const pages = (coverage.pages_never_read as Json[]).filter((p) => p.visitors >= t.min_visitors);
  if (!pages.length) return [];
  const named = pages.slice(0, t.max_named);
  const list = named.map((p) => `${shownPath(p.page)} (${num(p.visitors)} visitors)`).join(", ");
  return [{
    kind: "pages_not_crawled",
    claim: `${pages.length} page${pages.length === 1 ? "" : "s"} with ${t.min_visitors} or more visitors ` +
      `had no search or AI crawler read in the last ${coverage.lookback_days} days: ${list}.`,
    numbers: { pages: pages.length, lookback_days: coverage.lookback_days, first_page: named[0].page },
    weight: pages.length,
    reproduce: [call("behavior_crawl_coverage", { touchpoint: c.touchpoint.id, period: c.period.period })],
  }];
}
