/**
 * Rule 4 of the sender-side reporting rules: does a user agent look automated?
 * This is a cheap, generous pre-filter; the service classifies every hit again and drops what it does not
 * recognize. Every token of the service's crawler catalog (crawler_tokens.ts, generated from it) is reported,
 * so the two never disagree on a known crawler; known health probes stay unreported whatever they are.
 */
import { CRAWLER_TOKENS } from "./crawler_tokens.ts";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The catalog's tokens bounded by non-alphanumerics, longest first: the service matches them the same way. */
const CATALOG_TOKEN = new RegExp(
  `(?<![a-z0-9])(?:${
    [...CRAWLER_TOKENS].sort((a, b) => b.length - a.length).map(escape).join("|")
  })(?![a-z0-9])`,
);

/** Uptime monitors, load balancer and orchestrator probes: never reported, whatever else they look like. */
const HEALTH_PROBE =
  /kube-probe\/|ELB-HealthChecker|GoogleHC\/|Amazon-Route53-Health-Check|Pingdom|UptimeRobot|StatusCake|Site24x7|NewRelicPinger|Datadog\/Synthetics|DatadogSynthetics|Better ?(?:Uptime|Stack)|Uptimebot|Uptime-Kuma|Checkly|GoogleStackdriverMonitoring-UptimeChecks|Cloudflare-Healthchecks|Azure Traffic Manager|\bAlwaysOn\b|Consul Health Check|Envoy\/HC|HAProxy|Blackbox Exporter|Prometheus\/|nagios|check_http|monitis|Uptime\.com|Freshping|HetrixTools|Zabbix/i;

/**
 * Crawler tokens: bot/crawler/spider names, link-preview fetchers, AI fetchers, headless browsers, and a
 * `+http` contact URL. `bot` needs a word edge so phone models such as "CUBOT" are not caught.
 */
const CRAWLER_TOKEN = new RegExp(
  [
    "(?<!cu)bot(?:\\b|[_/-])", // Googlebot/2.1, bingbot, Slackbot-LinkExpanding, ClaudeBot, bot@
    "crawl",
    "spider",
    "slurp",
    "preview",
    "fetch(?:er)?\\b",
    "externalhit",
    "externalagent",
    "-user\\b", // ChatGPT-User, Claude-User, Perplexity-User, MistralAI-User
    "headless",
    "phantomjs",
    "slimerjs",
    "playwright",
    "puppeteer",
    "selenium",
    "scraper",
    "lighthouse",
    "pagespeed",
    "ia_archiver",
    "archiver",
    "google-(?:extended|inspectiontool|read-aloud|site-verification|cloudvertexbot|agent)",
    "googleother",
    "mediapartners-google",
    "apis-google",
    "anthropic-ai",
    "claude-web",
    "cohere-ai",
    "diffbot",
    "\\+https?:",
  ].join("|"),
  "i",
);

/**
 * Office for Mac's programs checking a link a person clicked in a document: the Mac's platform, then Word, Excel
 * or PowerPoint with its version and nothing else ("Mozilla/5.0 (Macintosh; Intel Mac OS X) Word/14.38.0"). The
 * service counts these as its catalog's Microsoft Office crawler; the product names are plain words, so the
 * token list cannot hold them and the whole form is matched, as the service does.
 */
const OFFICE_FOR_MAC = /^Mozilla\/5\.0 \(Macintosh;[^()]*\) (?:Word|Excel|PowerPoint)\/\d+(?:\.\d+)+$/;

export type AgentVerdict = "automated" | "browser" | "missing" | "health_probe";

/** Classifies a user agent for reporting: only "automated" is reported. */
export function classifyUserAgent(
  userAgent: string | null | undefined,
): AgentVerdict {
  const ua = (userAgent ?? "").trim();
  if (ua === "") return "missing";
  if (HEALTH_PROBE.test(ua)) return "health_probe";
  if (CATALOG_TOKEN.test(ua.toLowerCase())) return "automated";
  if (!ua.startsWith("Mozilla/")) return "automated";
  if (CRAWLER_TOKEN.test(ua)) return "automated";
  if (OFFICE_FOR_MAC.test(ua)) return "automated";
  if (isSelfContradicting(ua)) return "automated";
  return "browser";
}

/** True for a browser-looking agent whose parts cannot all be true at once: a forged agent. */
export function isSelfContradicting(ua: string): boolean {
  return hasLegacyEdgeOnModernChrome(ua) || hasHardwareModelAsPlatform(ua) ||
    hasSafariNewerThanIos(ua);
}

/** Legacy EdgeHTML ("Edge/18") ended with Chrome 70-era tokens; Chromium Edge says "Edg/" from Chrome 79 on. */
function hasLegacyEdgeOnModernChrome(ua: string): boolean {
  const edge = /\bEdge\/\d/.test(ua);
  const chrome = /\bChrome\/(\d+)/.exec(ua);
  return edge && chrome !== null && Number(chrome[1]) >= 79;
}

/** Real iOS browsers say "(iPhone; ...)"; an identifier such as "iPhone14,3" in that slot is forged. */
function hasHardwareModelAsPlatform(ua: string): boolean {
  const platform = /^Mozilla\/[\d.]+ \(([^)]*)\)/.exec(ua);
  if (!platform) return false;
  return platform[1].split(";").some((part) =>
    /^\s*(?:iPhone|iPad|iPod|Watch|AppleTV)\d+,\d+\s*$/.test(part)
  );
}

/**
 * Mobile Safari's `Version/` follows the iOS it ships with, so a newer Version is forged. Safari 26 and later
 * freeze the reported iOS at 18.6 or 18.7 on purpose; that pairing is genuine.
 */
function hasSafariNewerThanIos(ua: string): boolean {
  const ios = /\b(?:iPhone OS|CPU OS) (\d+)_(\d+)/.exec(ua);
  const version = /\bVersion\/(\d+)(?:\.(\d+))?/.exec(ua);
  if (!ios || !version) return false;
  const iosMajor = Number(ios[1]);
  const iosMinor = Number(ios[2]);
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  if (major >= 26 && iosMajor === 18 && iosMinor >= 6) return false;
  return major > iosMajor || (major === iosMajor && minor > iosMinor);
}
