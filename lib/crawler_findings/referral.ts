/**
 * Crawl-to-referral per AI vendor and per page: how much a vendor's crawlers read the site (training,
 * search and user-triggered fetchers counted apart) against the visitors its answer engines sent (web
 * events of the AI Assistant channel, by source), over one period. A search engine's own crawler (Googlebot,
 * bingbot) feeds its search results too, so its reads are shown beside the ratio, never in it.
 */
import { pageOfPath } from "../crawl/paths.ts";
import type { Engine, HitScope, Scope } from "../query/api.ts";

/** Answer engines (source names of lib/enrich/sources.ts, lower case) and the catalog vendor behind each. */
export const ENGINE_VENDOR: Record<string, string> = {
  chatgpt: "OpenAI",
  claude: "Anthropic",
  perplexity: "Perplexity",
  gemini: "Google",
  notebooklm: "Google",
  copilot: "Microsoft",
  deepseek: "DeepSeek",
  mistral: "Mistral AI",
  "meta ai": "Meta",
  "you.com": "You.com",
  qwen: "Alibaba",
  kimi: "Moonshot",
  "duckduckgo ai": "DuckDuckGo",
  "kagi assistant": "Kagi",
  grok: "xAI",
  phind: "Phind",
  poe: "Quora",
  huggingchat: "Hugging Face",
  andi: "Andi",
  "z.ai": "Zhipu AI",
};

const KIND = { ai_training: "training", ai_search: "search", ai_assistant: "user_triggered" } as const;
type ReadKind = (typeof KIND)[keyof typeof KIND];

export interface VendorReferral {
  vendor: string;
  answer_engines: string[];
  reads: Record<ReadKind, number>;
  /** distinct pages each kind of crawler read */
  pages: Record<ReadKind, number>;
  /** training + search + user-triggered page reads: the ratio's numerator */
  ai_reads: number;
  /** reads by the vendor's search-engine crawler, not in the ratio */
  search_index_reads: number;
  pages_read: number;
  referred_visitors: number;
  pages_referred_to: number;
}

export interface PageReferral {
  page: string;
  vendor: string;
  ai_reads: number;
  referred_visitors: number;
}

export interface ReferralFindings {
  vendors: VendorReferral[];
  /** (page, vendor) pairs with AI reads or referred visitors */
  pages: PageReferral[];
}

export interface ReferralQuery {
  engine: Engine;
  hits: HitScope;
  /** web events in the same period, human traffic */
  events: Scope;
}

// own entries only: a source named "constructor" must not find Object.prototype's member (s18 #19)
export const vendorOfEngine = (source: string): string =>
  Object.hasOwn(ENGINE_VENDOR, source.toLowerCase()) ? ENGINE_VENDOR[source.toLowerCase()] : source;

type Acc = VendorReferral & {
  pageSet: Set<string>;
  referredSet: Set<string>;
  kindPages: Record<ReadKind, Set<string>>;
};

/**
 * The AI Assistant channel's visitors by source and by source and entry page: the entry pages first, then the
 * sources. On a site answered from the session facts' attributions both count from the period's joined fact
 * rows, which the engine keeps; asked together, each joined every part's facts itself (two joins at once: at
 * 10M events 2.7 s cold for the entry pages alone, 5.8 s for both, and twice the memory), asked in turn the
 * second counts from the first one's rows. The entry pages go first: their join holds the entry pages too.
 */
async function referredVisitors(engine: Engine, events: Scope) {
  const channel = { field: "channel" as const, op: "eq" as const, value: "AI Assistant" };
  const entries = await engine.aggregate({
    ...events,
    filters: [channel, { field: "event_type", op: "eq", value: "$pageview" }],
  }, { metrics: ["visitors"], breakdown: ["source", "entry_page"] });
  const visits = await engine.aggregate({ ...events, filters: [channel] }, {
    metrics: ["visitors"],
    breakdown: ["source"],
  });
  return { visits, entries };
}

export async function crawlToReferral(q: ReferralQuery): Promise<ReferralFindings> {
  const [reads, { visits, entries }] = await Promise.all([
    q.engine.hitsAggregate({
      ...q.hits,
      filters: [
        ...(q.hits.filters ?? []),
        { field: "verification", op: "neq", value: "spoofed" },
        { field: "crawled", op: "eq", value: "true" },
      ],
    }, { metrics: ["crawled_requests"], breakdown: ["vendor", "category", "page", "site_file"] }),
    referredVisitors(q.engine, q.events),
  ]);
  const vendors = new Map<string, Acc>();
  const vendor = (name: string) => {
    let v = vendors.get(name);
    if (!v) {
      vendors.set(
        name,
        v = {
          vendor: name,
          answer_engines: [],
          reads: { training: 0, search: 0, user_triggered: 0 },
          pages: { training: 0, search: 0, user_triggered: 0 },
          ai_reads: 0,
          search_index_reads: 0,
          pages_read: 0,
          referred_visitors: 0,
          pages_referred_to: 0,
          pageSet: new Set(),
          referredSet: new Set(),
          kindPages: { training: new Set(), search: new Set(), user_triggered: new Set() },
        },
      );
    }
    return v;
  };
  const pages = new Map<string, PageReferral>();
  const page = (p: string, v: string) => {
    const k = `${v}\u0000${p}`;
    let r = pages.get(k);
    if (!r) pages.set(k, r = { page: p, vendor: v, ai_reads: 0, referred_visitors: 0 });
    return r;
  };
  for (const row of reads.rows) {
    if (row.key.site_file !== null || row.key.vendor === null) continue;
    const n = row.metrics.crawled_requests ?? 0;
    if (n === 0) continue;
    const kind = KIND[row.key.category as keyof typeof KIND];
    if (!kind && row.key.category !== "search_engine") continue;
    const v = vendor(String(row.key.vendor));
    if (!kind) {
      v.search_index_reads += n;
      continue;
    }
    v.reads[kind] += n;
    v.ai_reads += n;
    const p = pageOfPath(String(row.key.page));
    v.pageSet.add(p);
    v.kindPages[kind].add(p);
    page(p, v.vendor).ai_reads += n;
  }
  for (const row of visits.rows) {
    if (row.key.source === null) continue;
    const source = String(row.key.source);
    const v = vendor(vendorOfEngine(source));
    if (!v.answer_engines.includes(source.toLowerCase())) v.answer_engines.push(source.toLowerCase());
    v.referred_visitors += row.metrics.visitors ?? 0; // a visitor sent by two engines of a vendor counts twice
  }
  for (const row of entries.rows) {
    if (row.key.source === null || row.key.entry_page === null) continue;
    const v = vendor(vendorOfEngine(String(row.key.source)));
    v.referredSet.add(String(row.key.entry_page));
    page(String(row.key.entry_page), v.vendor).referred_visitors += row.metrics.visitors ?? 0;
  }
  return {
    vendors: [...vendors.values()]
      .filter((v) => v.ai_reads > 0 || v.referred_visitors > 0)
      .map(({ pageSet, referredSet, kindPages, ...v }) => ({
        ...v,
        pages: {
          training: kindPages.training.size,
          search: kindPages.search.size,
          user_triggered: kindPages.user_triggered.size,
        },
        answer_engines: v.answer_engines.sort(),
        pages_read: pageSet.size,
        pages_referred_to: referredSet.size,
      }))
      .sort((a, b) => b.ai_reads - a.ai_reads || b.referred_visitors - a.referred_visitors),
    pages: [...pages.values()].sort((a, b) =>
      b.ai_reads - a.ai_reads || b.referred_visitors - a.referred_visitors || a.page.localeCompare(b.page) ||
      a.vendor.localeCompare(b.vendor)
    ),
  };
}
