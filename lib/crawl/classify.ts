/**
 * Tells people from automation by the user agent, with three outcomes and the rule that decided:
 * - crawler: a catalog token names it (token, vendor, category from the catalog);
 * - automation: no catalog crawler, but the agent shows automation (HTTP libraries and tools, headless
 *   browsers, bot/crawler/spider words, a "+http" contact URL, a self-contradicting browser agent, the
 *   generic bot patterns of catalog.json, taken from the isbot project); token "unknown", category "other";
 * - human: a browser, in-app browser, native app, media player or TV, feature phone, text or legacy browser,
 *   mail or office client.
 * Order: catalog, strong automation signs (automation_signs.ts), human clients (human_clients.ts), generic
 * bot patterns and weak signs, then Mozilla-shaped agents are people and anything else is automation.
 * docs/crawlers.md says the same in prose.
 */
import { CATALOG, GENERIC_BOT_PATTERNS } from "./catalog_data.ts";
import { automationSign, carriesAddress, weakAutomationSign } from "./automation_signs.ts";
import {
  compatibleProduct,
  desktopPrefixOnly,
  listedProductFirst,
  ownHomePage,
  podcastApp,
  prefixedProduct,
  standaloneApp,
  toolNamedFirst,
  unknownTrailingProduct,
} from "./browser_shape.ts";
import {
  appOnPersonalDevice,
  appWithDeviceDetails,
  humanClient,
  inAppBrowserOf,
  mediaServiceWord,
} from "./human_clients.ts";
import { appBundleId } from "./human_apps.ts";
import type { AgentClass, AgentVerdict, CatalogCategory, CatalogEntry } from "./types.ts";

export type { AgentClass, AgentOutcome, AgentVerdict } from "./types.ts";

const AI_CATEGORIES: ReadonlySet<CatalogCategory> = new Set(["ai_training", "ai_search", "ai_assistant"]);

/** AI training, AI search and AI assistant agents are "ai_agent" traffic; every other crawler is "bot". */
export function isAiCategory(category: CatalogCategory): boolean {
  return AI_CATEGORIES.has(category);
}

// One pass over the agent: at each position that starts a word (not after a letter or digit), the catalog
// tokens that begin with the next three characters, longest first, so a variant wins over its stem and the
// leftmost token wins; a token must end at a non-alphanumeric, so "YouBot" is not found in "MyYouBotter". The
// same answer as one alternation regex of all tokens, without trying every token at every position.
const byMatch = new Map<string, CatalogEntry>();
for (const e of CATALOG) for (const m of e.match) byMatch.set(m, e);
const byPrefix = new Map<string, string[]>();
for (const m of [...byMatch.keys()].sort((a, b) => b.length - a.length)) {
  const key = m.slice(0, 3);
  const list = byPrefix.get(key);
  if (list) list.push(m);
  else byPrefix.set(key, [m]);
}
const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 122);

/** The leftmost, longest catalog token in a lower-case agent, or null. */
function catalogToken(lower: string): string | null {
  for (let i = 0; i + 3 <= lower.length; i++) {
    if (i > 0 && isAlnum(lower.charCodeAt(i - 1))) continue;
    const candidates = byPrefix.get(lower.slice(i, i + 3));
    if (!candidates) continue;
    for (const m of candidates) {
      if (lower.startsWith(m, i) && !isAlnum(lower.charCodeAt(i + m.length))) return m;
    }
  }
  return null;
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

/** Catalog tokens that say what they are ("…bot", "…-user", "…fetcher") are never an app's name. */
const AUTOMATION_NAME =
  /bot|crawl|spider|fetch|scrap|agent|user|index|archiv|search|preview|hit|check|monitor|inspect|proxy|tool/;

// One compiled regex over the catalog's generic patterns; the pattern-by-pattern search only runs on a hit,
// to name the pattern in the reason.
const GENERIC_BOT_RE = new RegExp(GENERIC_BOT_PATTERNS.join("|"), "i");
let genericEach: RegExp[] | null = null;
function genericPatternOf(ua: string): string {
  genericEach ??= GENERIC_BOT_PATTERNS.map((p) => new RegExp(p, "i"));
  return GENERIC_BOT_PATTERNS[genericEach.findIndex((re) => re.test(ua))] ?? "";
}

/** The platform a desktop or mobile app names beside its own product; a service's fetcher names none. */
const PLATFORM =
  /\b(?:Windows|Win(?:32|64)|Linux|X11|Macintosh|Mac ?OS|Darwin|Android|iOS|iPhone|iPad|FreeBSD|OpenBSD|CrOS)\b/i;

/** A whole desktop browser agent of an Electron app: the platform, WebKit, Chrome, Electron and Safari. */
const ELECTRON_APP =
  /^Mozilla\/5\.0 \((?:Windows NT|Macintosh|X11)[^)]*\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\) .*Chrome\/[\d.]+ Electron\/\d[\d.]* Safari\/[\d.]+$/;

/** A browser engine followed by its browser's own product, wherever the agent starts. */
const MANGLED_BROWSER =
  /\bGecko\/\d{8} (?:\S+ )?Firefox\/\d|\bAppleWebKit\/[\d.]+\+? \(KHTML, like Gecko\) (?:\S+ ){0,3}(?:Mobile )?Safari\/\d/;

/**
 * Office for Mac's programs checking a link a person clicked in a document, under their own product name after
 * the Mac's platform and nothing else ("Mozilla/5.0 (Macintosh; Intel Mac OS X) Word/14.38.0", "… Excel/14.34.0",
 * "… PowerPoint/14.43.0"; Shopify/browser_sniffer's and browscap's test agents): Office's own requests, the
 * catalog's Microsoft Office entry by the eighth round's decision. The product names are plain words, so the
 * catalog cannot hold them as tokens; the whole form is asked instead (twenty-sixth round).
 */
const OFFICE_FOR_MAC = /^Mozilla\/5\.0 \(Macintosh;[^()]*\) (?:Word|Excel|PowerPoint)\/\d+(?:\.\d+)+$/;
const OFFICE_ENTRY = CATALOG.find((e) => e.token === "Microsoft Office");

/** Whether a catalog token is a product versioned exactly as the agent's own, separate Chrome/ product. */
function chromiumNamesake(ua: string, token: string): boolean {
  if (token.includes("chrome")) return false;
  const chrome = /\bChrome\/(\d+\.\d+\.\d+\.\d+)(?![\w.])/.exec(ua);
  if (!chrome) return false;
  const at = ua.toLowerCase().indexOf(`${token}/${chrome[1]}`);
  return at > 0 && !/[a-z0-9]/i.test(ua[at - 1]) &&
    !/[\w.]/.test(ua[at + token.length + 1 + chrome[1].length] ?? "");
}

const automation = (reason: string): AgentVerdict => ({ outcome: "automation", reason, agent: UNKNOWN });
const human = (reason: string): AgentVerdict => ({ outcome: "human", reason, agent: null });

/**
 * An agent as a web server's log wrote it, read back: percent-encoded, "+" a space in the form encoding
 * (CloudFront's logs, "Mozilla/5.0%20(Windows%20NT%2010.0;…", "Mozilla%2F5.0+%28Windows+NT+6.1%29…"), or IIS's
 * W3C logs, which write "+" for each space ("Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)+AppleWebKit/…"; a "+"
 * before "http" is the contact URL's own: ";++http://…" is "; +http://…"). An agent with a space is as sent.
 */
export function logDecoded(ua: string): string {
  if (ua.includes(" ") || !/[+%]/.test(ua)) return ua;
  if (/%[0-9A-Fa-f]{2}/.test(ua)) {
    try {
      return decodeURIComponent(ua.replace(/\+/g, " "));
    } catch {
      return ua; // a stray "%" that encodes nothing: not a log's encoding
    }
  }
  return /\+.*\+/.test(ua) ? ua.replace(/\+(?!https?:)/g, " ") : ua;
}

function decide(ua: string, withCatalog: boolean): AgentVerdict {
  const trimmed = logDecoded(ua.trim());
  if (trimmed === "") return automation("empty agent"); // an agent that says nothing is no person's client
  const token = withCatalog ? catalogToken(trimmed.toLowerCase()) : null;
  if (withCatalog && !token && OFFICE_ENTRY && OFFICE_FOR_MAC.test(trimmed)) {
    return { outcome: "crawler", reason: "Office for Mac's own request", agent: fromEntry(OFFICE_ENTRY) };
  }
  let strong = automationSign(trimmed);
  // a known browser's or app's own home page is no fetcher's address
  if (
    (strong === "URL in a browser-shaped agent" || strong === "domain name in a browser-shaped agent") &&
    ownHomePage(trimmed)
  ) strong = null;
  if (token) {
    const e = byMatch.get(token)!;
    // an app that shares a crawler's name (WhatsApp) is the app when it reports its own device and OS
    // (never a security scanner's: no app shares its name, and it writes a browser's whole agent after a
    // payload host, "http://….burpcollaborator.net/5.0 (Linux; Android 7.0; …) …")
    if (
      !strong && !AUTOMATION_NAME.test(token) && e.category !== "security_scanner" &&
      !e.sends_device_details &&
      appWithDeviceDetails(trimmed)
    ) {
      return human(`app named like catalog token ${e.token}, with its device details`);
    }
    // a messaging app's in-app browser: its name after a whole phone browser agent (its fetcher sends the name alone)
    if (
      !strong && !AUTOMATION_NAME.test(token) && e.category === "social_preview" &&
      inAppBrowserOf(trimmed, token)
    ) {
      return human(`in-app browser of an app named like catalog token ${e.token}`);
    }
    // a Chromium browser named like a crawler numbers itself as its Chrome build ("… Chrome/33.0.1750.157
    // CoRom/33.0.1750.157 CocCoc/33.0.1750.157 Safari/537.36", the Coc Coc browser in agentzero's tests); its
    // search engine's crawler writes "coccoc/1.0" in a compatible part (eighteenth round)
    if (!strong && chromiumNamesake(trimmed, token)) {
      return human(`browser named like catalog token ${e.token}, numbered as its Chrome build`);
    }
    // a desktop app built on Electron names itself inside the whole browser agent it renders with
    // ("… PocketCasts/2.2.0 Chrome/144.0.7559.220 Electron/40.6.1 Safari/537.36"); its fetcher sends no Electron
    if (!strong && !AUTOMATION_NAME.test(token) && ELECTRON_APP.test(trimmed)) {
      return human(`desktop app named like catalog token ${e.token}, on Electron`);
    }
    return { outcome: "crawler", reason: `catalog token ${e.token}`, agent: fromEntry(e) };
  }
  if (strong === "contact URL" && appOnPersonalDevice(trimmed)) return human("app on a personal device");
  // a desktop app known by its name may give its home page with the platform it runs on ("Juice/2.2 (Windows)
  // +http://juicereceiver.sf.net/") or name the runtime it is built on ("JOSM/1.5 (…) Java/1.8.0"); a
  // service's fetcher under an app's name gives no platform ("Overcast/1.0 Podcast Sync (+http://overcast.fm/)")
  if (strong === "contact URL" || strong?.startsWith("headless or scripted browser: Java/")) {
    const app = standaloneApp(trimmed);
    if (app && (strong !== "contact URL" || PLATFORM.test(trimmed) || podcastApp(app))) {
      return human(`app known by its name alone: ${app}`);
    }
  }
  if (strong) return automation(strong);
  const appended = unknownTrailingProduct(trimmed);
  if (appended) return automation(appended);
  const prefixOnly = desktopPrefixOnly(trimmed);
  if (prefixOnly) return automation(prefixOnly);
  const toolName = toolNamedFirst(trimmed);
  if (toolName) return automation(`a tool's name: ${toolName}`);
  const person = humanClient(trimmed);
  if (person) {
    // a podcast or feed service's fetcher says what it does with the file ("PodcastIndex Classifier/1.0")
    const service = person === "media player or TV" || person === "feed reader"
      ? mediaServiceWord(trimmed)
      : null;
    if (service) return automation(`a service under a media or feed name: ${service}`);
    return human(person);
  }
  const app = standaloneApp(trimmed) ?? listedProductFirst(trimmed);
  if (app && (!carriesAddress(trimmed) || PLATFORM.test(trimmed))) {
    return human(`app known by its name alone: ${app}`);
  }
  if (appBundleId(trimmed)) return human("an app's bundle id");
  if (GENERIC_BOT_RE.test(trimmed)) return automation(`generic bot pattern ${genericPatternOf(trimmed)}`);
  const weak = weakAutomationSign(trimmed);
  if (weak) return automation(weak);
  if (/^Mozilla\//i.test(trimmed)) {
    const compatible = compatibleProduct(trimmed);
    if (compatible) return automation(`unknown product in a compatible agent: ${compatible}`);
    const prefixed = prefixedProduct(trimmed);
    if (prefixed) return automation(`unknown product where a browser names its platform: ${prefixed}`);
    return human("browser-shaped agent without automation signs");
  }
  // a whole browser's engine and product behind a mangled prefix ("Mozilla /5.0 (X11; …) Gecko/20051111
  // Firefox/1.5", "ELEMENT10 1 Mozilla/5.0 (…) AppleWebKit/534.24 (KHTML, like Gecko) Chrome/11.0 Safari/534.24")
  if (MANGLED_BROWSER.test(trimmed)) return human("a browser's engine and product behind another prefix");
  return automation("no browser, app or device recognised");
}

// Agents repeat a lot (one crawler sends thousands of hits): remember recent answers.
const cache = new Map<string, AgentVerdict>();
const CACHE_MAX = 2_000;

/** Classifies a user agent: crawler, other automation or human, with the reason. Answers are frozen. */
export function classifyAgent(ua: string): AgentVerdict {
  const hit = cache.get(ua);
  if (hit !== undefined) return hit;
  const out = Object.freeze(decide(ua, true));
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(ua, out);
  return out;
}

/**
 * The rules alone, the catalog set aside (uncached): what the classifier would answer for an agent no catalog
 * entry names. bench/classify.ts reports it per corpus part, as an estimate of recall on crawlers nobody has
 * listed yet: the catalog is built from the same lists as most crawler agents of the own parts.
 */
export function classifyByStructure(ua: string): AgentVerdict {
  return decide(ua, false);
}

/** The automated agent's class (a crawler, or "unknown" automation), or null for a person's client. */
export function classifyUserAgent(ua: string): AgentClass | null {
  return classifyAgent(ua).agent;
}

/** The catalog entry of a token ("GPTBot"), or null for "unknown" and names the catalog does not hold. */
export function catalogEntry(token: string): CatalogEntry | null {
  return CATALOG_BY_TOKEN.get(token) ?? null;
}
const CATALOG_BY_TOKEN = new Map(CATALOG.map((e) => [e.token, e]));

/**
 * The catalog's token of a crawler named as people write it: any case ("gptbot", as robots.txt matches names,
 * RFC 9309), or one of its user-agent tokens; null when the catalog holds no such crawler.
 */
export function crawlerNamed(name: string): string | null {
  return CATALOG_BY_NAME.get(name.trim().toLowerCase()) ?? null;
}
// the tokens themselves win over another entry's variant of the same spelling
const CATALOG_BY_NAME = new Map([
  ...CATALOG.flatMap((e) => e.match.map((m) => [m, e.token] as const)),
  ...CATALOG.map((e) => [e.token.toLowerCase(), e.token] as const),
]);
