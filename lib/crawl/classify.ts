/**
 * Tells automated user agents from browsers. Order: a catalog token names the crawler; otherwise generic
 * signs of automation (isbot's patterns, HTTP libraries, headless browsers, a "+http" contact URL, an agent
 * that does not start with "Mozilla/", a self-contradicting browser agent) give token "unknown".
 * null means a plain browser.
 */
import type { CrawlerCategory } from "../store/records.ts";
import { CATALOG, GENERIC_BOT_PATTERNS } from "./catalog_data.ts";
import type { AgentClass, CatalogEntry } from "./types.ts";

export type { AgentClass } from "./types.ts";

const AI_CATEGORIES: ReadonlySet<CrawlerCategory> = new Set(["ai_training", "ai_search", "ai_assistant"]);

/** AI training, AI search and AI assistant agents are "ai_agent" traffic; every other crawler is "bot". */
export function isAiCategory(category: CrawlerCategory): boolean {
  return AI_CATEGORIES.has(category);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// One pass over the agent: every catalog token, longest first so a variant wins over its stem at one position,
// bounded by non-alphanumerics so "YouBot" is not found inside "MyYouBotter".
const byMatch = new Map<string, CatalogEntry>();
for (const e of CATALOG) for (const m of e.match) byMatch.set(m, e);
const TOKEN_RE = new RegExp(
  `(?<![a-z0-9])(${
    [...byMatch.keys()].sort((a, b) => b.length - a.length).map(escape).join("|")
  })(?![a-z0-9])`,
);

const GENERIC_RE = new RegExp(GENERIC_BOT_PATTERNS.join("|"), "i");
const AUTOMATION_RE = new RegExp(
  [
    "headless",
    "puppeteer",
    "playwright",
    "selenium",
    "webdriver",
    "phantomjs",
    "crawler",
    "spider",
    "fetcher",
    "scraper",
    "\\+https?://",
    "^(?:curl|wget|python|go-http-client|axios|node-fetch|node|undici|okhttp|java|apache-httpclient|libwww-perl|" +
    "postmanruntime|insomnia|guzzlehttp|ruby|php|dart|got|reqwest|deno|bun)\\b",
  ].join("|"),
  "i",
);

/** A browser agent that cannot be real: the sender's pre-filter rules, re-checked here. */
function selfContradicting(ua: string): boolean {
  // Legacy EdgeHTML's "Edge/" token never sat beside Chrome 79 or later (Chromium Edge says "Edg/").
  if (/\bEdge\/\d/.test(ua)) {
    const chrome = /\bChrome\/(\d+)/.exec(ua);
    if (chrome && Number(chrome[1]) >= 79) return true;
  }
  // A hardware model ("iPhone14,2") where the platform belongs.
  if (/^Mozilla\/5\.0 \((?:iPhone|iPad|iPod)\d+,\d+/.test(ua)) return true;
  // Safari's Version/ newer than its iOS; Safari 26+ freezes the OS token at 18_x, so only 18 and below count.
  const ios = /\bCPU (?:iPhone )?OS (\d+)_/.exec(ua);
  const version = /\bVersion\/(\d+)/.exec(ua);
  if (ios && version && /Safari\//.test(ua)) {
    const v = Number(version[1]);
    if (v <= 18 && v > Number(ios[1])) return true;
  }
  return false;
}

function fromEntry(e: CatalogEntry): AgentClass {
  return {
    token: e.token,
    vendor: e.vendor,
    category: e.category,
    traffic: isAiCategory(e.category) ? "ai_agent" : "bot",
  };
}

const UNKNOWN: AgentClass = Object.freeze({
  token: "unknown",
  vendor: null,
  category: "other",
  traffic: "bot",
});

function classifyUncached(ua: string): AgentClass | null {
  const trimmed = ua.trim();
  if (trimmed === "") return UNKNOWN; // an agent that says nothing is not a browser
  const m = TOKEN_RE.exec(trimmed.toLowerCase());
  if (m) return fromEntry(byMatch.get(m[1])!);
  if (!/^Mozilla\//.test(trimmed) && !/^Opera\//.test(trimmed)) return UNKNOWN;
  if (AUTOMATION_RE.test(trimmed) || GENERIC_RE.test(trimmed) || selfContradicting(trimmed)) return UNKNOWN;
  return null;
}

// Agents repeat a lot (one crawler sends thousands of hits): remember recent answers.
const cache = new Map<string, AgentClass | null>();
const CACHE_MAX = 2_000;

/** Classifies a user agent: the crawler it names, "unknown" automation, or null for a plain browser. */
export function classifyUserAgent(ua: string): AgentClass | null {
  const hit = cache.get(ua);
  if (hit !== undefined) return hit;
  const out = classifyUncached(ua);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(ua, out);
  return out;
}

/** The catalog entry of a token ("GPTBot"), or null for "unknown" and names the catalog does not hold. */
export function catalogEntry(token: string): CatalogEntry | null {
  return CATALOG_BY_TOKEN.get(token) ?? null;
}
const CATALOG_BY_TOKEN = new Map(CATALOG.map((e) => [e.token, e]));
