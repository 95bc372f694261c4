/** Findings from visitors' behavior: the headline numbers, pages that rose or fell, sources and AI engines. */
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, movement, num, relative } from "./common.ts";
import { shownPath } from "../../url_path.ts";

/** Pages found in one period's top list only are looked up in the other; the largest this many. */
const MAX_LOOKUPS = 8;

const HEAD = [["visitors", "visitors"], ["sessions", "sessions"], ["pageviews", "pageviews"]] as const;

/** Visitors, sessions and pageviews that moved by the headline threshold (from behavior_overview). */
export function headlineFindings(c: FindingContext, overview: Json): Finding[] {
  const t = THRESHOLDS.headline;
  const out: Finding[] = [];
  const input = { touchpoint: c.touchpoint.id, period: c.period.period };
  for (const [field, word] of HEAD) {
    const m = overview[field] as { value: number | null; previous: number | null };
    if (m?.value == null || m.previous == null) continue;
    const change = relative(m.value, m.previous);
    if (Math.max(m.value, m.previous) < t.min_count || change === null || Math.abs(change) < t.min_change) {
      continue;
    }
    out.push({
      kind: "headline_change",
      claim: `${capital(word)}: ${num(m.value)}, ${movement(m.value, m.previous)}.`,
      numbers: { metric: field, value: m.value, previous: m.previous, change },
      weight: Math.abs(change),
      reproduce: [call("behavior_overview", input)],
    });
  }
  return out;
}

const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

/** Pages whose pageviews rose or fell by the page threshold, from behavior_pages for both periods. */
export async function pageFindings(c: FindingContext, now: Json, before: Json): Promise<Finding[]> {
  const t = THRESHOLDS.pages;
  const cur = new Map<string, number>(now.pages.map((p: Json) => [p.page, p.pageviews]));
  const prev = new Map<string, number>(before.pages.map((p: Json) => [p.page, p.pageviews]));
  // A page in one top list only may still have views in the other period: ask for it by name.
  const lookup = async (page: string, period: string): Promise<number> => {
    const a = await c.ask("behavior_pages", { touchpoint: c.touchpoint.id, period, search: page, limit: 25 });
    return a.pages.find((p: Json) => p.page === page)?.pageviews ?? 0;
  };
  const pages = [...new Set([...cur.keys(), ...prev.keys()])]
    .filter((page) => Math.max(cur.get(page) ?? 0, prev.get(page) ?? 0) >= t.min_pageviews)
    .sort((a, b) => Math.max(cur.get(b) ?? 0, prev.get(b) ?? 0) - Math.max(cur.get(a) ?? 0, prev.get(a) ?? 0))
    .slice(0, MAX_LOOKUPS + 25);
  const nowWhole = now.pages_total <= now.pages.length,
    beforeWhole = before.pages_total <= before.pages.length;
  const candidates = await Promise.all(pages.map(async (page, i) => {
    const n = cur.get(page), b = prev.get(page);
    const lookups = i < MAX_LOOKUPS;
    return {
      page,
      now: n ?? (!nowWhole && lookups ? await lookup(page, c.period.period) : 0),
      before: b ?? (!beforeWhole && lookups ? await lookup(page, c.period.previous) : 0),
      // a page missing from a cut list, past the lookups, has a count we do not know: never claimed
      exact: (n !== undefined || nowWhole || lookups) && (b !== undefined || beforeWhole || lookups),
    };
  }));
  const out: Finding[] = [];
  for (const p of candidates) {
    if (!p.exact) continue;
    if (Math.abs(p.now - p.before) < t.min_difference) continue;
    const change = relative(p.now, p.before);
    const rose = change === null ? p.now > 0 : change >= t.rise;
    const fell = change !== null && change <= t.fall;
    if (!rose && !fell) continue;
    out.push({
      kind: rose ? "page_rose" : "page_fell",
      claim: `${shownPath(p.page)}: ${num(p.now)} pageviews, ${movement(p.now, p.before)}.`,
      numbers: { page: p.page, pageviews: p.now, previous: p.before, change },
      weight: change === null ? 10 : Math.abs(change),
      reproduce: [
        call("behavior_pages", { touchpoint: c.touchpoint.id, period: c.period.period, search: p.page }),
        call("behavior_pages", { touchpoint: c.touchpoint.id, period: c.period.previous, search: p.page }),
      ],
    });
  }
  return out.sort((a, b) => b.weight - a.weight).slice(0, t.max);
}

/**
 * A source's name as people write it. Sources are counted under lower-case short names (lib/enrich/sources.ts:
 * "chatgpt", "gemini"), which stay as they are in the finding's numbers and calls; its claim names the brand.
 * A name without a known spelling gets a capital first letter, unless it is a host ("you.com").
 */
const SOURCE_NAMES: Record<string, string> = {
  chatgpt: "ChatGPT",
  perplexity: "Perplexity",
  claude: "Claude",
  gemini: "Gemini",
  notebooklm: "NotebookLM",
  copilot: "Copilot",
  deepseek: "DeepSeek",
  mistral: "Mistral",
  phind: "Phind",
  "meta ai": "Meta AI",
  poe: "Poe",
  grok: "Grok",
  qwen: "Qwen",
  kimi: "Kimi",
  "duckduckgo ai": "DuckDuckGo AI",
  "z.ai": "Z.ai",
  andi: "Andi",
  google: "Google",
  bing: "Bing",
  duckduckgo: "DuckDuckGo",
  yahoo: "Yahoo",
  yandex: "Yandex",
  baidu: "Baidu",
  ecosia: "Ecosia",
  facebook: "Facebook",
  instagram: "Instagram",
  linkedin: "LinkedIn",
  reddit: "Reddit",
  youtube: "YouTube",
  tiktok: "TikTok",
  x: "X",
  twitter: "X",
  github: "GitHub",
};
export const sourceName = (name: string): string =>
  Object.hasOwn(SOURCE_NAMES, name)
    ? SOURCE_NAMES[name]
    : /^[a-z][a-z0-9 -]*$/.test(name)
    ? name[0].toUpperCase() + name.slice(1)
    : name;

/** Sources and AI answer engines whose visitors rose or fell, or that are new (behavior_sources). */
export function sourceFindings(c: FindingContext, sources: Json): Finding[] {
  const input = { touchpoint: c.touchpoint.id, period: c.period.period, limit: 25 };
  const pick = (rows: Json[], kind: "source_change" | "ai_engine_change") => {
    const t = kind === "source_change" ? THRESHOLDS.sources : THRESHOLDS.ai_engines;
    const out: Finding[] = [];
    for (const r of rows) {
      const before = r.previous_visitors as number | null;
      if (before === null) continue;
      if (Math.max(r.visitors, before) < t.min_visitors) continue;
      const change = relative(r.visitors, before);
      if (change !== null && change < t.rise && change > t.fall) continue;
      const what = kind === "ai_engine_change" ? "AI answer engine " : "";
      out.push({
        kind,
        claim: `${what}${sourceName(String(r.name))} sent ${num(r.visitors)} visitors, ${
          movement(r.visitors, before)
        }.`,
        numbers: { source: r.name, visitors: r.visitors, previous: before, change },
        weight: change === null ? 10 : Math.abs(change),
        reproduce: [call("behavior_sources", input)],
      });
    }
    return out.sort((a, b) => b.weight - a.weight).slice(0, t.max);
  };
  const engines = new Set((sources.ai_answer_engines as Json[]).map((r) => r.name));
  return [
    ...pick(sources.ai_answer_engines, "ai_engine_change"),
    // AI engines are sources too: said once, as engines
    ...pick((sources.sources as Json[]).filter((r) => !engines.has(r.name)), "source_change"),
  ];
}

/**
 * What drove each headline change: behavior_explain_change for the metric, asked only when the headline
 * moved; the segments that carry the threshold's share of the difference.
 */
export async function driverFindings(c: FindingContext, headline: Finding[]): Promise<Finding[]> {
  const t = THRESHOLDS.drivers;
  const out: Finding[] = [];
  for (const h of headline) {
    const metric = String(h.numbers.metric);
    const input = { touchpoint: c.touchpoint.id, period: c.period.period, metric };
    const a = await c.ask("behavior_explain_change", input).catch(() => null);
    if (!a) continue;
    const drivers = (a.drivers as Json[])
      .filter((d) => d.contribution_share !== null && Math.abs(d.contribution_share) >= t.min_share)
      .slice(0, t.max);
    for (const d of drivers) {
      out.push({
        kind: "change_driver",
        claim: String(d.finding),
        numbers: {
          metric,
          dimension: d.dimension,
          segment: d.name,
          contribution: d.contribution,
          contribution_share: d.contribution_share,
        },
        weight: Math.abs(d.contribution_share),
        reproduce: [call("behavior_explain_change", input)],
      });
    }
  }
  return out;
}
