/**
 * The structural rule for browser-shaped agents: a browser, webview, in-app browser or OS component ends its
 * agent with a product token people's software is known by; monitors, SEO and marketing tools, test clouds and
 * scanners that append their own product to a browser's agent end it with theirs ("… Safari/537.36 DareBoost").
 * The known tokens are data (human_tokens.json, built by scripts/build_catalog.ts with each token's source).
 */
import data from "./human_tokens.json" with { type: "json" };
import { OTHER_BROWSER } from "./human_browsers.ts";
import { FEATURE_PHONE, HANDSET } from "./human_devices.ts";
import { FEED_READER, MEDIA_AND_TV, PERSONAL_APP } from "./human_apps.ts";

const KNOWN: ReadonlySet<string> = new Set([...Object.keys(data.tokens), ...Object.keys(data.standalone)]);

/**
 * Browser add-ons and toolbars (the names Yauaa's tests give add-ons, "StumbleUpon", "AlexaToolbar"): the only
 * known names the domain sign sets aside when written as a domain with a version inside a browser's parentheses.
 * A browser's or an app's name there ("…; Opera.com 2.1)") is no add-on's token (eighteenth round, after a review).
 */
const ADD_ONS: ReadonlySet<string> = new Set(
  Object.entries(data.tokens).filter(([, source]) => source.includes("browser add-ons")).map(([name]) =>
    name
  ),
);

/** Whether a lower-cased name is a known browser add-on or toolbar (`ADD_ONS`). */
export function knownAddOn(name: string): boolean {
  return ADD_ONS.has(name);
}
const STANDALONE: ReadonlySet<string> = new Set(Object.keys(data.standalone));

/**
 * The app an agent that is not browser-shaped starts with, when it is one that sends its name alone
 * ("Barca/2.8.2", "Doppler 2.9.5.4", "Pocket Casts"), or null.
 */
export function standaloneApp(ua: string): string | null {
  if (/^(?:Mozilla|Opera)\//i.test(ua)) return null;
  // up to four words of a name ("RCM CardDAV plugin/2.0", "ArcGIS Client Using WinInet"), longest first
  const m = /^[a-z][\w.!+-]*(?: +[a-z][\w.!+-]*){0,3}/i.exec(ua.replace(/%20/g, " "));
  if (!m) return null;
  const words = m[0].split(/ +/).map((w) => w.replace(/[^a-z0-9!+_]+$/i, "").toLowerCase());
  for (let n = words.length; n >= 1; n--) {
    const name = words.slice(0, n).join(" ");
    if (STANDALONE.has(name)) return name;
  }
  // the lists write a name with spaces where its agent joins the words ("Apple PubSub": "Apple-PubSub/65") and
  // without the release an agent glues to it ("ProPresenter": "ProPresenter3")
  const joined = /^([a-z][a-z!+]{2,}(?:[-_][a-z][a-z!+]*)*?)(?:[-_]?\d[\d.]*)?(?=[/ ;(]|$)/i.exec(m[0])?.[1];
  if (joined) {
    const name = joined.replace(/[-_]/g, " ").toLowerCase();
    if (name !== words[0] && STANDALONE.has(name)) return name;
  }
  return null;
}

/**
 * Names on those lists that are a service's own fetchers or a service's web address (Podchaser-Parser,
 * gpodder.net, megaphone.fm): with a contact URL they stay automation, as fetchers write it, not an app's.
 */
const SERVICE_NAME = /parser|crawl|fetch|bot|aggregat|^[a-z0-9-]+\.(?:fm|net|com|org|io)$/;

/**
 * Podcast and audio apps opawg/user-agents-v2 names (their standalone source) and uap-core's podcast catchers
 * (`podcast`), which give their home page.
 */
const PODCAST_APP: ReadonlySet<string> = new Set(
  [
    ...Object.entries(data.standalone as Record<string, string>)
      .filter(([, source]) => source.startsWith("opawg/"))
      .map(([name]) => name),
    ...(data.podcast as string[]),
  ].filter((name) => !SERVICE_NAME.test(name)),
);

/** Whether a standalone app's name is one of opawg's podcast and audio apps. */
export function podcastApp(name: string): boolean {
  return PODCAST_APP.has(name);
}

/**
 * Browsers and people's software the parsers' lists name (ua-parser-js's browser rules, uap-core's families,
 * browscap's people's software), as opposed to the curated parts of browser agents and in-app suffixes.
 */
const LISTED_PRODUCT: ReadonlySet<string> = new Set(
  Object.entries(data.tokens as Record<string, string>)
    .filter(([, source]) => /^(?:ua-parser-js|ua-parser\/uap-core|browscap)/.test(source))
    .map(([name]) => name),
);

/**
 * A product the parsers' lists name as people's software that an agent which is not browser-shaped starts
 * with, versioned ("NetSurf/3.10", "Dillo/3.0.5"), when it wears no crawler's "(compatible; …)" part, else null.
 */
export function listedProductFirst(ua: string): string | null {
  // a crawler's "(compatible; …)" part, or an HTTP library the program fetches with ("FME/2018 libcurl/7.57")
  if (/^(?:Mozilla|Opera)\//i.test(ua) || /\(compatible[;)]|\blib\w+\/|\bcurl\b|http.?client/i.test(ua)) {
    return null;
  }
  // with its version, the way software names itself ("NetSurf/3.10"); a bare or spelled-out name is no sign
  const first = productTokens(ua)[0];
  return first && /^v?\d/.test(first.version) && LISTED_PRODUCT.has(first.name) ? first.name : null;
}

/**
 * Words a program's own name gives it away as a networking or testing tool by: it fetches or checks URLs
 * ("LinkChecker", "URLExtractor", "HTTPTester"). The brief's product-token words (fetch, monitor, check, scan,
 * preview, proxy) and Yauaa's robot words (Apache-2.0: spider, crawl, bot, scan, site, probe, alyzer, grab,
 * indexer, checker) were measured one by one; these are the ones that flag no person's agent of any corpus part
 * (the others are strong signs already or name apps too: "proxy", "download", "sync", "feed", "reader"). Since
 * the tenth round also a name ending in "server" ("TranscribeServer/1.0 (…; macOS 15.2.0) Alamofire/5.10.2",
 * opawg's bot): software that calls itself a server is no person's client. Since the twenty-second round also
 * what site checkers, indexers, auditors, probes, validators, verifiers, importers, webhooks, cron jobs and pingers
 * call themselves ("Website Explorer/0.9.9.9", "AuditMyPC Webmaster Tool", browscap's robots; "ping-service",
 * uap-core's): measured on every corpus part, browscap's 21,000 test agents included, they flag no person's agent.
 * Words that end or start people's app names stay out or are bounded: "composite" and "parasite", "Cronet"
 * (Chrome's network stack), "Shopping", "Pages", "Frank", "Seoul", "Hooked", "Coworker".
 */
const TOOL_NAME =
  /url|http|test|extract|check|(?<![oa])site|index|audit|probe|valid|verif|import|webhook|^cron(?!et)|(?:^|[-_.])ping|[a-z](?<!ob|pre|de)server$/;

/**
 * The name of an agent that is not browser-shaped when its first product says it is a tool
 * ("URL-Checker/1.0 (Windows NT 10.0)"), else null. No people's software the parsers list is named so.
 */
export function toolNamedFirst(ua: string): string | null {
  if (
    !/url|http|test|extract|check|server|site|index|audit|probe|valid|verif|import|hook|cron|ping/i.test(
      ua,
    ) || /^(?:Mozilla|Opera)\//i.test(ua)
  ) return null;
  const first = productTokens(ua)[0];
  return first && TOOL_NAME.test(first.name) && !knownHumanProduct(first.name) ? first.name : null;
}

/** Agents that start the way browsers do and name a browser engine. */
export function browserShaped(ua: string): boolean {
  return (ua.startsWith("Mozilla/") || ua.startsWith("Opera/")) &&
    (ua.includes("AppleWebKit/") || ua.includes("Gecko/") || ua.includes("Trident/") ||
      ua.includes("Presto/"));
}
/** The last word of an agent that ends with a browser's own product. */
const BROWSER_TAIL = /^(?:Safari|Firefox|Chrome|Edg|OPR)\/[\d.]+$/;

/** A product token: its lower-case name and its version ("" when bare). */
export interface Product {
  name: string;
  version: string;
}

/**
 * The product tokens outside parentheses and brackets, in order ("… Safari/537.36 DareBoost/1.0" ends with
 * safari 537.36, dareboost 1.0); pure numbers and locales are left out.
 */
export function productTokens(ua: string): Product[] {
  let s = ua;
  for (let i = 0; i < 3 && /[([]/.test(s); i++) s = s.replace(/\([^()]*\)|\[[^[\]]*\]/g, " ");
  const out: Product[] = [];
  for (const part of s.replace(/[()[\]]/g, " ").split(/\s+/)) {
    const slash = part.indexOf("/");
    const name = (slash < 0 ? part : part.slice(0, slash)).replace(/^[^a-z0-9]+|[^a-z0-9!+]+$/gi, "")
      .toLowerCase();
    if (!/[a-z]{2}/.test(name) || /^[a-z]{2}[-_][a-z]{2}$/.test(name)) continue;
    out.push({ name, version: slash < 0 ? "" : part.slice(slash + 1) });
  }
  return out;
}

/** Products a complete browser agent ends with; whatever follows one of them was appended. */
const BROWSER_END = new Set(["safari", "firefox", "chrome", "edg", "edge", "opr"]);

/**
 * A version that marks a browser's own build: four parts ("95.5.4464.65"), a major of 20 or more or a part of
 * 100 or more ("1.233.355"), the way Chromium and Firefox forks number theirs; tools that append their name
 * number it 1.0, 2.1, 3.0.
 */
const BROWSER_BUILD = /^(?:\d+\.\d+\.\d+\.\d+|[2-9]\d(?!\d{7})|\d{3,8}(?!\d))|\.\d{3,}/;

/** Whether a product name is one people's software is known by (a browser, webview, app or OS component). */
export function knownHumanProduct(name: string): boolean {
  if (KNOWN.has(name)) return true;
  // a known name with a platform or edition suffix: "edga", "edgios", "focusios"
  for (let cut = name.length - 1; cut >= 3 && cut >= name.length - 3; cut--) {
    if (KNOWN.has(name.slice(0, cut))) return true;
  }
  // a browser that says so, or names the browser it is built on ("MRCHROME", "CravingExplorer")
  if (/browser|webview|chrome|firefox|explorer/.test(name)) return true;
  return OTHER_BROWSER.test(name) || MEDIA_AND_TV.test(name) || PERSONAL_APP.test(name) ||
    FEED_READER.test(name);
}

/**
 * Known names written like a domain ("Battle.net Overlay", "Booking.com App", "bol.com"): the name's first word,
 * which is how the product's own agent writes it ("Battle.net/1.3.1.6075").
 */
const KNOWN_DOMAIN_NAMED: ReadonlySet<string> = new Set(
  [...KNOWN].map((k) => k.split(" ")[0]).filter((w) => /^[\w-]+\.(?:com|net|org|io|app)$/.test(w)),
);

/**
 * An app's embedded browser naming itself like a domain where a browser names itself, between WebKit's engine
 * and the Safari product that ends the agent ("… (KHTML, like Gecko) Battle.net/1.3.1.6075 Safari/537.36",
 * Blizzard's overlay, a browser in browscap's tests and on its list of people's software), when the name is a
 * known one: its product, not a host the agent was sent from. Twenty-sixth round; an unknown name there stays
 * the domain sign (the thirteenth round's structural form cost a held-out crawler).
 */
export function knownProductNamedLikeDomain(ua: string): boolean {
  const m = /\(KHTML, like Gecko\) ([\w-]+\.(?:com|net|org|io|app))\/\d[\d.]* Safari\/[\d.]+$/.exec(ua);
  return m !== null && KNOWN_DOMAIN_NAMED.has(m[1].toLowerCase()) && browserShaped(ua);
}

/**
 * Webviews and in-app browsers (an app's name after the engine is the app, whatever it is called), and the
 * legacy "; U;" agents of stock browsers that carriers and makers suffixed with their own names.
 */
const IN_APP = /; wv\)|Version\/4\.0 Chrome\/|\bMobile\/\w+(?! Safari)(?:\s|$)|; U;/;

/**
 * Why a browser-shaped agent is automation by the product appended after a complete browser agent, or null:
 * the agent is no full browser agent, the appended product is known, or it numbers itself like a browser build.
 */
export function unknownTrailingProduct(ua: string): string | null {
  // most agents end with the browser itself ("… Safari/537.36"): no need to take them apart
  if (BROWSER_TAIL.test(ua.slice(ua.lastIndexOf(" ") + 1)) || !browserShaped(ua)) return null;
  const products = productTokens(ua);
  if (products.length < 2) return null;
  const last = products[products.length - 1];
  const before = products[products.length - 2];
  if (!BROWSER_END.has(before.name) || BROWSER_END.has(last.name)) return null;
  // a name with a digit in it is mostly a device model or a build ("SCH-U380", "VN271"), rarely a tool
  if (/\d/.test(last.name) || BROWSER_BUILD.test(last.version) || knownHumanProduct(last.name)) return null;
  // phones' WAP stacks, webviews, TVs, media software and in-app browsers add parts of their own; their rules
  // recognise them (asked last: these are the costly patterns, and most agents never get here)
  if (FEATURE_PHONE.test(ua) || IN_APP.test(ua) || MEDIA_AND_TV.test(ua) || PERSONAL_APP.test(ua)) {
    return null;
  }
  return `unknown product after a browser agent: ${last.name}`;
}

/**
 * The words a desktop platform's parentheses hold: the system, its architecture, "U" and a locale; since the
 * eighteenth round also a build's target triplet ("pc-x86_64-linux-gnu", as the load tester Siege writes it in
 * agentzero's tests), which no browser writes there.
 */
const DESKTOP_PART =
  /^(?:rv:[\d.]+|(?:[a-z0-9_]+-){1,3}(?:linux|gnu|darwin|freebsd|openbsd|netbsd|mingw32|cygwin)[\w.-]*|Windows(?: NT [\d.]+| 9[58]| XP)?|Win(?:32|64|NT)|x64|x86_64|WOW64|Macintosh|(?:Intel|PPC) Mac OS X(?: [\d_.]+)?|X11|(?:Linux|Ubuntu|Fedora|Debian)(?: (?:x86_64|i[3-6]86|armv\w+|aarch64))?|[UIN]|[a-z]{2}(?:[-_][a-z]{2})?)$/i;

/**
 * A browser's prefix with a desktop platform and then no engine and no browser, app or device people use:
 * "Mozilla/5.0 (Windows NT 10.0; Win64; x64)" cut short, or followed by a tool's own name
 * ("Mozilla/5.0 (Windows NT 5.1) brokenlinkcheck.com/1.2"). Every desktop browser since the 1990s names its
 * engine and itself after the platform; scripts that borrow the prefix do not. macOS's own web views end at
 * WebKit's "(KHTML, like Gecko)", so an engine alone is a person's only there. On Windows it stays a tool's:
 * "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)" cut short is a common
 * scraper's agent, and Windows' web views (WebView2, CEF) name Chrome after the engine (three opawg browser
 * lines ending there stay flagged).
 * Returns why, or null.
 */
export function desktopPrefixOnly(ua: string): string | null {
  // plain string checks first: nearly every agent asked is a whole browser's, with an engine after its platform
  if (!ua.startsWith("Mozilla/5.0 (")) return null;
  const close = ua.indexOf(")");
  if (close < 0 || ua.lastIndexOf("(", close) !== 12) return null;
  const rest = ua.slice(close + 1).trim();
  const engineOnly = rest.endsWith("(KHTML, like Gecko)") &&
    /^AppleWebKit\/[\d.]+ \(KHTML, like Gecko\)$/.test(rest);
  if (!engineOnly && /AppleWebKit\/|Gecko|Trident\/|Presto\/|KHTML/.test(rest)) return null;
  const platform = ua.slice(13, close);
  if (!platform.split(";").every((part) => DESKTOP_PART.test(part.trim()))) return null;
  if (rest === "") return "a desktop platform and no browser after it";
  if (engineOnly) {
    return platform.startsWith("Macintosh") ? null : "a desktop platform and no browser after it";
  }
  // any known product after the platform (an engine of its own before it: "Goanna/… PaleMoon/27.1")
  const products = productTokens(rest);
  if (products.length === 0 || products.some((p) => /\d/.test(p.name) || knownHumanProduct(p.name))) {
    return null;
  }
  return `unknown product after a desktop platform: ${products[0].name}`;
}

/**
 * The product a "Mozilla/x (compatible; Name/1.0; …)" agent names first, when no browser or app people use is
 * known by it, else null. The form is the crawlers' convention for wearing a browser's prefix; the browsers
 * that wrote it named themselves there (MSIE, Konqueror) and are known products. Asked only of agents that
 * nothing else recognised.
 */
export function compatibleProduct(ua: string): string | null {
  const m = /^Mozilla\/[\d.]+ ?\(compatible; ?([a-z][^;)/]*)/i.exec(ua);
  if (!m) return null;
  const name = m[1].trim().toLowerCase().replace(/[\s\d.]+$/, "");
  if (name === "" || knownHumanProduct(name) || knownHumanProduct(name.split(" ")[0])) return null;
  return name;
}

/**
 * The one product a "Mozilla/x" prefix is followed by where a browser gives its platform, when no people's
 * software is known by it: alone after the prefix ("Mozilla/5.0 pods3-backfill/1.0", opawg's bot;
 * "Mozilla/4.0 compatible ZyBorg/1.0", browscap's) or as the whole of the parentheses
 * ("Mozilla/5.00 (Nikto/2.1.5) (Evasions:None) (Test:000964)", Yauaa's scanner): a script that put the prefix
 * before its own name. A versionless word or a version that is no number is a phone's model
 * ("Mozilla/4.0 SonyEricssonK850iv/R1CA"), left alone, and so is a handset maker's name with a model number
 * (`HANDSET`: "Mozilla/5.0 BlackBerry9700/5.0.0.351"). Asked only of agents that nothing else recognised.
 * Returns the name, or null.
 */
export function prefixedProduct(ua: string): string | null {
  const m = /^Mozilla\/[\d.]+ (?:compatible;? )?([a-z][\w.-]*)\/v?\d[\w.-]*$/i.exec(ua) ??
    /^Mozilla\/[\d.]+ ?\(([a-z][\w.-]*)\/v?\d[\w.-]*\)/i.exec(ua);
  if (!m) return null;
  const name = m[1].toLowerCase();
  // a handset maker's model with its firmware ("Mozilla/5.0 Nokia6230/2.0"): a phone's, whatever the version
  if (/\d/.test(name) && HANDSET.test(m[1])) return null;
  return knownHumanProduct(name) ? null : name;
}

/**
 * A known browser's or app's own home page after its product, ending the agent ("… QtWeb Internet Browser/3.8.5
 * http://www.QtWeb.net", "… Safari/531.2+ Miro/6.0 (http://www.getmiro.com/)", browscap's browsers and media
 * players): the address is the product's, whose name its host holds, not a fetcher's contact page (those write
 * "+http" or name a tool no list knows). Spares the agent the URL and domain signs only.
 */
export function ownHomePage(ua: string): boolean {
  const m = /([A-Za-z][\w-]*)(?: [A-Za-z][\w-]*){0,2}\/[\w.+-]+ \(?https?:\/\/(?:www\.)?([\w.-]+)[^\s)]*\)?$/
    .exec(
      ua,
    );
  if (!m || !browserShaped(ua)) return false;
  const name = m[1].toLowerCase();
  const product = m[0].slice(0, m[0].indexOf("/")).toLowerCase();
  return name.length >= 4 && m[2].toLowerCase().replace(/[.-]/g, "").includes(name) &&
    (knownHumanProduct(product) || knownHumanProduct(name));
}
