/**
 * Builds the crawler catalog (lib/crawl/catalog.json), the IP-list snapshot (lib/crawl/ranges/snapshot.json),
 * the server SDK's copy of the catalog's tokens (sdk/server/src/crawler_tokens.ts) and the user-agent samples the
 * tests use (tests/lib/crawl/ua_samples.json) from the facts in
 * ../shared/data/crawlers (or DATA_DIR). Run: deno run -A scripts/build_catalog.ts
 *
 * Sources: crawlers.csv (curated table: vendor, category, verification), ai-robots-txt_robots.json (AI agents),
 * crawler-user-agents.json (monperrus/crawler-user-agents, MIT: names by tag, and sample user agents),
 * lib/crawl/sources/well-known-bots.json (arcjet/well-known-bots, MIT: names by category), vendors' crawler pages
 * (catalog_curated.ts), isbot_patterns.json (generic automation; its literal names also as catalog names),
 * lib/crawl/sources/ (the other vendored lists: COUNTER-Robots, fnando/browser, GoAccess, uap-core, browscap, opawg,
 * Yauaa, OWASP CRS, agentzero, more-names.tsv and extra-names.tsv: the names more parsers give robots and people's
 * software), ranges/ (copies of the published IP lists).
 * Every catalog entry says which of these it comes from. The known human product tokens
 * (lib/crawl/human_tokens.json) come from ua-parser-js's browser rules, the curated list in catalog_curated.ts,
 * the people's names of uap-core, browscap, Yauaa and opawg, and the browser, engine, OS and app names of
 * ua-parser-js 1.0.41, agentzero and bowser (lib/crawl/sources/human-names.tsv, by
 * scripts/extract_human_names.ts), each token with its source.
 */
import type { CatalogCategory, CatalogEntry } from "../lib/crawl/types.ts";
import type { CrawlerCategory } from "../lib/store/records.ts";
import { RANGE_LISTS } from "../lib/crawl/ranges/lists.ts";
import { automationSign } from "../lib/crawl/automation_signs.ts";
import { appWithDeviceDetails, humanClient } from "../lib/crawl/human_clients.ts";
import { productTokens } from "../lib/crawl/browser_shape.ts";
import { extractPrefixes } from "../lib/crawl/ranges/parse.ts";
import {
  CURATED,
  CURATED_HUMAN_TOKENS,
  CURATED_STANDALONE_APPS,
  GENERIC_AI_NAMES,
  LIST_NAMES_SKIPPED,
  ROBOTS_ONLY,
} from "./catalog_curated.ts";
import { regexWords, splitAlternatives } from "./regex_words.ts";

const root = new URL("..", import.meta.url).pathname;
const dataDir = Deno.env.get("DATA_DIR") ?? `${root}../shared/data/crawlers`;
const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(`${dataDir}/${p}`));

/** Splits one CSV line with quoted fields. */
function csvLine(line: string): string[] {
  const out: string[] = [];
  let cur = "", quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"', i++);
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") (out.push(cur), cur = "");
    else cur += ch;
  }
  out.push(cur);
  return out;
}

/** ai.robots.txt's free-text "function" → our category. */
function aiCategory(fn: string, description: string): CrawlerCategory {
  const f = fn.toLowerCase();
  if (/assistant|agent|prompt|on behalf|user/.test(f)) return "ai_assistant";
  if (/search/.test(f)) return "ai_search";
  if (/train|scrap|data|llm|dataset|model/.test(f)) return "ai_training";
  const d = description.toLowerCase();
  if (/on behalf of|user-initiated|user request/.test(d)) return "ai_assistant";
  if (/search/.test(d)) return "ai_search";
  return "ai_training";
}

function operatorName(op: string): string | null {
  if (!op || /unclear|unknown/i.test(op)) return null;
  const link = /^\[([^\]]+)\]/.exec(op);
  const name = (link ? link[1] : op).trim();
  return name.length > 40 ? name.split(/[ ,]/)[0] : name;
}

/** "iaskspider/2.0" → "iaskspider"; "Brightbot 1.0" → "Brightbot". */
const bareToken = (name: string) => name.replace(/\/[\d.]+$/, "").replace(/ [\d.]+$/, "").trim();

async function buildCatalog(): Promise<CatalogEntry[]> {
  const byToken = new Map<string, CatalogEntry>();
  const put = (e: CatalogEntry) => byToken.set(e.token.toLowerCase(), e);

  // 1. AI agents of ai.robots.txt: every name is a user-agent token unless it is robots-only or too generic
  const robots = await readJson("ai-robots-txt_robots.json") as Record<string, Record<string, string>>;
  for (const [name, info] of Object.entries(robots)) {
    const token = bareToken(name);
    if (ROBOTS_ONLY.has(token.toLowerCase()) || GENERIC_AI_NAMES.has(token.toLowerCase())) continue;
    if (byToken.has(token.toLowerCase())) continue;
    put({
      token,
      match: [token.toLowerCase()],
      vendor: operatorName(info.operator ?? ""),
      category: aiCategory(info.function ?? "", info.description ?? ""),
      verify: { lists: [], rdns: [], forward: true },
      source: "ai.robots.txt",
    });
  }

  // 2. the curated table (crawlers.csv, interpreted in catalog_curated.ts) wins over ai.robots.txt
  const csv = (await Deno.readTextFile(`${dataDir}/crawlers.csv`)).trim().split("\n").slice(1).map(csvLine);
  const csvTokens = new Set(
    csv.map((r) => r[1].replace(/\s*\(.*$/, "").replace(/ etc\.$/, "").toLowerCase()),
  );
  for (const c of CURATED) put(c);
  for (const t of csvTokens) {
    if (t === "" || t === "varies") continue;
    if (!byToken.has(t) && !CURATED.some((c) => c.match.includes(t))) {
      throw new Error(`crawlers.csv token ${t} has no curated entry`);
    }
  }
  // 2b. Microsoft Office's and Outlook's own requests (this project's decision, docs/crawlers.md): a link a person
  // clicks or pastes in Word or Outlook is first requested by Office itself, with its own agent, to check it, and
  // then opened by the person's browser; Outlook's and Outlook Express's own agents load a mail's images to show
  // them inside the mail. Neither is a page a person reads: link checks and mail image fetches, as the catalog
  // files Google's and Yahoo's mail image proxies. opawg/user-agents-v2 lists the `ms-office; MSOffice` form
  // among its bots. A webview or in-app browser of these apps ("… AppleWebKit/… Outlook-iOS-Android/1.0 Mobile/…",
  // "… Edg/126 OneOutlook/1.2") names none of these tokens and stays a person's. Outlook's mobile app names its
  // device in its own agent ("Outlook-iOS/709.2226530.prod.iphone"), so device details do not make it the app.
  put({
    token: "Microsoft Office",
    match: [...OFFICE_OWN_AGENTS],
    vendor: "Microsoft",
    category: "social_preview",
    verify: { lists: [], rdns: [], forward: true },
    source: "opawg/user-agents-v2 and docs/crawlers.md (Office's own link checks and mail image fetches)",
    sends_device_details: true,
  });
  // 3. the crawler lists' names, where a list's pattern is one literal name and no entry holds it yet
  const matched = new Set([...byToken.values()].flatMap((e) => e.match));
  const addListed = (source: string, pattern: string, tags: string[], instances: string[]) => {
    if (tags.some((t) => TOOL_TAGS.has(t))) return; // HTTP libraries and drivers: automation_signs.ts
    const token = literalToken(pattern);
    if (!token) return;
    const lower = token.toLowerCase();
    if (matched.has(lower) || LIST_NAMES_SKIPPED.has(lower) || humanWords.has(lower)) return;
    if (ROBOTS_ONLY.has(lower) || GENERIC_AI_NAMES.has(lower)) return;
    // HTTP libraries, command-line tools and headless browsers stay other automation, named by their sign;
    // security scanners among them get the catalog's category
    const sign = automationSign(token) ?? "";
    if (/^(?:HTTP library|headless)/.test(sign) && listCategory(tags) !== "security_scanner") return;
    const re = new RegExp(`(?<![a-z0-9])${escape(lower)}(?![a-z0-9])`);
    if (instances.length && !instances.some((ua) => re.test(ua.toLowerCase()))) return; // the name is in its agents
    matched.add(lower);
    // the list's own agents show the crawler naming a device or an app stack ("SharingUIService/1 CFNetwork/1467.1
    // Darwin/23.0.0"): then device details do not make an agent of its name the app (classify.ts)
    const deviceForm = instances.some((ua) => re.test(ua.toLowerCase()) && appWithDeviceDetails(ua));
    put({
      token,
      match: [lower],
      vendor: null,
      category: CATEGORY_CORRECTED[lower] ?? listCategory(tags),
      verify: { lists: [], rdns: [], forward: true },
      source,
      ...(deviceForm ? { sends_device_details: true as const } : {}),
    });
  };
  const monperrus = await readJson("crawler-user-agents.json") as {
    pattern: string;
    tags?: string[];
    instances?: string[];
  }[];
  // a pattern that is no literal name may still be a group of names or a name with a version class
  // ("Netumo|netumo", "Nitro-", "(sistrix|SISTRIX) [cC]rawler"): each alternative, a plain word only when it
  // says what it is (as for the names-only lists below)
  const listedNames = (pattern: string) =>
    literalToken(pattern) ? [pattern] : opawgAlternatives(pattern).map(opawgVersionCut)
      .filter((n) => !/^[A-Z]?[a-z]+$/.test(n) || /bot|crawl|spider/i.test(n));
  for (const p of monperrus) {
    for (const n of listedNames(p.pattern)) {
      addListed("crawler-user-agents", n, p.tags ?? [], p.instances ?? []);
    }
  }
  const arcjet = JSON.parse(await Deno.readTextFile(`${root}lib/crawl/sources/well-known-bots.json`)) as {
    pattern: { accepted: string[] };
    categories?: string[];
    instances?: { accepted?: string[] };
  }[];
  for (const b of arcjet) {
    for (const p of b.pattern.accepted.flatMap(listedNames)) {
      addListed("well-known-bots", p, b.categories ?? [], b.instances?.accepted ?? []);
    }
  }
  // opawg/user-agents-v2's bots (MIT; lib/crawl/sources/opawg-bots.json): the podcast measurement group's list of
  // the automated clients podcast hosts see (feed and audio importers, transcribers, sync services, share-sheet
  // link previews), each with sample agents; a pattern's literal alternatives are names, each kept only when in
  // its samples, with the category the entry's name and description say (podcast → feed_fetcher)
  const opawg = JSON.parse(await Deno.readTextFile(`${root}lib/crawl/sources/opawg-bots.json`)) as {
    entries: { name: string; pattern: string; description?: string; examples?: string[] }[];
  };
  for (const b of opawg.entries) {
    // Office's link probe is the Office entry above (step 2b), with Outlook's own agents
    if (OPAWG_SKIPPED.has(b.name)) continue;
    const category = describedCategory(`${b.name} ${b.description ?? ""}`);
    for (const alt of opawgAlternatives(b.pattern)) {
      // a home page or an address is no name; a version pinned in the pattern is no part of one
      // ("^AudioWaveBot/1\.0"; "^Spotify/1\.0$", the app's cache service, leaves the app's name, a human word)
      if (/https?:|@/.test(alt)) continue;
      const name = opawgVersionCut(alt);
      addListed("opawg/user-agents-v2", name, categoryTags(category), b.examples ?? []);
    }
  }
  // names-only lists (no sample agents): a name that could be an ordinary word ("Titan", "Collector", "Reaper")
  // stays out unless it says bot, spider or crawl
  // (a list that also files apps and libraries as robots, such as GoAccess's, gives only names that say so);
  // names of browsers, apps and agent conventions a list also holds ("ELinks", "Mozilla/5.0", "User-Agent"),
  // libraries ("HttpComponents", "CakePHP") and the bare words every rule already reads ("crawl") stay out
  const addNames = (
    source: string,
    names: [string, CatalogCategory][],
    onlySaying = false,
    curated = false,
  ) => {
    for (const [name, category] of names) {
      if (name === "" || /::/.test(name) || NOT_A_CRAWLER_NAME.test(name)) continue;
      if (uapRawNames.has(name.toLowerCase()) || humanClient(name) || humanClient(`${name}/1.0`)) continue;
      if (
        onlySaying && category === "other" && !SAYS_AUTOMATION.test(name)
      ) continue;
      // a longer spelling of a name the catalog holds ("ArchiveTeam ArchiveBot" beside "ArchiveBot") would only
      // take the agent from the better-known entry
      if ([...name.toLowerCase().matchAll(/[a-z0-9]+(?:[-_.][a-z0-9]+)*/g)].some((m) => matched.has(m[0]))) {
        continue;
      }
      const plain = /^[A-Z]?[a-z]+$/.test(name); // "Collector", "Reaper": an app's or a device's word too
      if (
        !curated &&
        (plain
          ? !/bot|spider|crawl/i.test(name)
          : !CRAWLER_WORD.test(name) && !/[a-z][A-Z]|[\d._-]/.test(name))
      ) continue;
      addListed(source, escape(name), categoryTags(category), []);
    }
  };
  // nginx-ultimate-bad-bot-blocker's list of bad agents (MIT): names only
  const badList = await sourceLines("nginx-bad-user-agents.list");
  addNames("nginx-ultimate-bad-bot-blocker", badList.filter((n) => !/\//.test(n)).map((n) => [n, "other"]));
  // COUNTER-Robots (MIT): the robots a library's usage statistics leave out; patterns, kept when one literal
  // name ("ADmantX", "BUbiNG", "^LinkParser\/", "Faveeo\/\d")
  const counter = (await sourceLines("counter-robots.list")).map((p) => counterName(p)).filter((n) =>
    n !== null
  );
  addNames("COUNTER-Robots", counter.map((n) => [n!, "other"]));
  // fnando/browser's bots and search engines (MIT): "match: description"; the description gives the category
  // (the gem's keys are lower case: the description's spelling is the name's when it holds it, "200PleaseBot")
  const fnando: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("fnando-browser-bots.yml")) {
    const m = /^([^:]+): *"?(.*?)"?$/.exec(line);
    if (!m) continue;
    const key = m[1].trim();
    const at = m[2].toLowerCase().indexOf(key);
    fnando.push([at >= 0 ? m[2].slice(at, at + key.length) : key, describedCategory(m[2])]);
  }
  addNames("fnando/browser", fnando, true);
  // GoAccess's agent table (MIT): the kinds that are automation
  const goaccess: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("goaccess-browsers.tsv")) {
    const [name, kind] = line.split("\t");
    const category = GOACCESS_KINDS[kind];
    if (category) goaccess.push([name.replace(/\/$/, ""), category]);
  }
  addNames("GoAccess", goaccess, true);
  // uap-core's bot families (Apache-2.0): the named alternatives of its "Bots" and "Bots Pattern" entries. Since
  // the twelfth round read as a parser's curated robots (like Yauaa's): a name need not say what it is, but the
  // names-only filters apply, a plain word ("Argus", "Pandora", "htdig", "WIRE") must say bot, and people's
  // software uap-core also files there stays out (UAP_BOTS_SKIPPED); category other, as before (the category a
  // name says was tried: it made entireweb's "Speedy Spider" a monitor)
  addNames(
    "uap-core bots",
    (await uapBotNames())
      .filter((n) =>
        !UAP_BOTS_SKIPPED.has(n) && (!/^(?:[A-Z]?[a-z]+|[A-Z]+)$/.test(n) || /bot|spider|crawl/i.test(n))
      )
      .map((n) => [n, "other"]),
    false,
    true,
  );
  // browscap's robots (MIT): names written in their own agent patterns (scripts/extract_browscap_bots.ts);
  // its syndication readers are feed fetchers, the rest take the category their name says; as for the other
  // names-only lists, a name of category other must say what it is (browscap also files browsers such as
  // TencentTraveler, download managers and torrent clients as robots)
  const browscap: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("browscap-bots.tsv")) {
    const [name, kind] = line.split("\t");
    // its syndication readers hold people's desktop readers too (FeedDemon, RssBandit, NewsFox): the same rule
    if (!SAYS_AUTOMATION.test(name)) continue;
    // a name says what a robot does (monitor, preview, feed), not that it feeds a search engine ("…spider")
    const described = describedCategory(name);
    const category = kind === "bot-syndication-reader"
      ? "feed_fetcher"
      : described === "search_engine"
      ? "other"
      : described;
    browscap.push([name, category]);
  }
  addNames("browscap", browscap, true);
  // Yauaa's named robots and hacker tool kits (Apache-2.0; scripts/extract_yauaa_robots.ts): a parser's curated
  // robots, not a mixed list, so a name need not say what it is, but the names-only filters above still apply
  // (a plain word such as "Buck" must say bot, a bare "BW" stays out); the category the lookup's value says
  const yauaa: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("yauaa-robots.tsv")) {
    const [name, lookup, value] = line.split("\t");
    if (YAUAA_SKIPPED.test(name)) continue;
    yauaa.push([
      name.replace(/[_ ]+$/, ""),
      lookup === "HackerToolKits" ? "security_scanner" : describedCategory(`${name} ${value}`),
    ]);
  }
  addNames("nielsbasjes/yauaa robots", yauaa);
  // OWASP CRS's scanner list (Apache-2.0; owasp-crs-scanners.data), "curated by hand": the security scanners a web
  // application firewall turns away, and the crawler list it kept until 2023 (owasp-crs-crawlers.data). Curated
  // lists of names, so a plain name need not say what it is ("nikto", "havij"), but the names-only filters above
  // apply (its HTTP libraries, "Mechanize", "Scrapy", stay other automation); a browser prefix in a pattern gives
  // the name inside it ("Mozilla/5.0 (compatible; Panoptic" → "Panoptic"), a bare forged prefix no name
  const crsName = (line: string) =>
    line.replace(/^Mozilla\/[\d.]+ \((?:compatible; )?([^;)]+)[;)]?$/, "$1").replace(/[/ -]+$/, "").trim();
  const crs = async (file: string) =>
    (await sourceLines(file)).map((l) => crsName(l)).filter((n) => !CRS_SKIPPED.has(n.toLowerCase()));
  addNames(
    "OWASP CRS scanners",
    (await crs("owasp-crs-scanners.data")).map((n) => [n, "security_scanner"]),
    false,
    true,
  );
  // a name says what a crawler does, not that it feeds a search engine ("pymills-spider")
  const crawlerCategory = (n: string): CatalogCategory =>
    describedCategory(n) === "search_engine" ? "other" : describedCategory(n);
  addNames(
    "OWASP CRS crawlers",
    (await crs("owasp-crs-crawlers.data")).map((n) => [n, crawlerCategory(n)]),
    false,
    true,
  );
  // the isbot project's patterns (isbot_patterns.json, Unlicense) that are one literal name ("neustar wpm",
  // "offbyone", "webkit2png"): asked only after the human rules as patterns, they miss a name inside a whole browser
  // agent; as catalog names they are found anywhere. Its literal patterns that are ordinary words ("manager",
  // "parser", "radar", "download": ISBOT_WORDS) say "is a bot" by a word and stay patterns; the names-only filters
  // above apply (people's software such as the browser Sogou, libraries and headless browsers stay out)
  const isbotNames = (await readJson("isbot_patterns.json") as string[])
    .filter((p) => /^[a-z0-9][a-z0-9 ._-]*[a-z0-9]$/.test(p) && !ISBOT_WORDS.has(p));
  addNames(
    "isbot patterns",
    isbotNames.map((n) => [n, ISBOT_CATEGORY[n] ?? crawlerCategory(n)]),
    false,
    true,
  );
  // hexydec/agentzero's crawler mapping (MIT; lib/crawl/sources/agentzero-crawlers.tsv, by
  // scripts/extract_agentzero_crawlers.ts; eighteenth round): a parser's curated robots with its own category. It
  // also files people's apps, libraries and runtimes among them (eMClient, ManicTime, Snapchat, curl, Deno): the
  // names-only filters and AGENTZERO_SKIPPED keep them out, a plain or all-capital word must say bot ("Expanse",
  // "Cohere"), and a name holding an address or a field label ("appid: s~virustotalcloud") is no token
  const agentzero: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("agentzero-crawlers.tsv")) {
    const [raw, kind] = line.split("\t");
    const name = raw.replace(/[/: ]+$/, "");
    if (/[@~]|:\s|:\/\//.test(name) || AGENTZERO_SKIPPED.has(name.toLowerCase())) continue;
    if (/^(?:[A-Z]?[a-z]+|[A-Z]+)$/.test(name) && !/bot|spider|crawl/i.test(name)) continue;
    agentzero.push([name, AGENTZERO_CATEGORY[kind] ?? crawlerCategory(name)]);
  }
  addNames("hexydec/agentzero", agentzero, false, true);
  // the robots more parsers and bot checks name (lib/crawl/sources/more-names.tsv, scripts/extract_more_names.ts;
  // twenty-first round: user-agent-utils, httpagentparser, woothee, legitbot, arp242/isbot): a mixed list of
  // tokens and display names, so the filters of the mixed lists apply (a plain word must say bot: "Google",
  // "Yandex", "Hatena" stay out); the category the name says
  const moreRobots: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("more-names.tsv")) {
    const [name, , kind] = line.split("\t");
    // a host name ("burpcollaborator.net") is an address the URL signs read, and would take the agent from the
    // name the catalog holds ("burpcollaborator")
    if (kind !== "robot" || MORE_ROBOTS_SKIPPED.has(name.toLowerCase()) || /\.[a-z]{2,}$/.test(name)) {
      continue;
    }
    moreRobots.push([name, MORE_ROBOTS_CATEGORY[name.toLowerCase()] ?? crawlerCategory(name)]);
  }
  addNames("more parsers' robots", moreRobots);
  // the robots two more parsers name (lib/crawl/sources/extra-names.tsv, scripts/extract_extra_names.ts;
  // twenty-third round: commenthol/ua-parser2's `bot` entries, HttpUserAgentParser's Robots table): a parser's
  // curated robots, so a name need not say what it is, but the names-only filters apply, a plain or all-capital
  // word must say bot ("Argus", "WIRE", "FDM"), a host or a URL path is no token ("openai.com/gptbot"), and
  // EXTRA_SKIPPED leaves out people's software and libraries they also file there
  const extraRobots: [string, CatalogCategory][] = [];
  for (const line of await sourceLines("extra-names.tsv")) {
    const [name, , kind] = line.split("\t");
    if (kind !== "robot" || /\.[a-z]{2,}$|\//.test(name) || EXTRA_SKIPPED.has(name.toLowerCase())) continue;
    if (/^(?:[A-Z]?[a-z]+|[A-Z]+)$/.test(name) && !/bot|spider|crawl/i.test(name)) continue;
    extraRobots.push([name, EXTRA_CATEGORY[name.toLowerCase()] ?? crawlerCategory(name)]);
  }
  addNames("extra parsers' robots", extraRobots, false, true);
  // a names-only list's name that the crawler lists' own sample agents show before a crawler the catalog already
  // names would take that agent from it ("ArchiveTeam ArchiveBot/…"): it stays out
  const samples = [
    ...monperrus.flatMap((p) => p.instances ?? []),
    ...arcjet.flatMap((b) => b.instances?.accepted ?? []),
  ].map((ua) => ua.toLowerCase());
  const earlier = [...byToken.values()].filter((e) => !NAMES_ONLY_LISTS.has(e.source)).flatMap((e) =>
    e.match
  );
  // each sample's leftmost earlier token is found once; a name takes the sample when it starts before it (or at
  // the same place and is longer), the same answer as asking leftmostToken with the name added
  const firsts = samples.map((ua) => {
    const token = leftmostToken(earlier, ua);
    return token === null ? null : { ua, token, at: boundedIndex(ua, token) };
  }).filter((f) => f !== null);
  for (const [key, e] of byToken) {
    if (!NAMES_ONLY_LISTS.has(e.source)) continue;
    const name = e.match[0];
    const takes = firsts.some(({ ua, token, at }) => {
      if (token === name) return false;
      const nameAt = boundedIndex(ua, name);
      return nameAt >= 0 && (nameAt < at || (nameAt === at && name.length > token.length));
    });
    if (takes) byToken.delete(key);
  }
  // longest match tokens first, so "googlebot-image" wins over "googlebot"
  return [...byToken.values()].sort((a, b) => a.token.localeCompare(b.token));
}

/** A vendored list's lines (lib/crawl/sources/), without its comment header and blank lines. */
async function sourceLines(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${root}lib/crawl/sources/${file}`);
  return text.split("\n").map((l) => l.trimEnd()).filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/**
 * A COUNTER-Robots pattern as a plain name, or null: its spaces ("(\\s|\\+)", "[\\+\\s]") as spaces, a trailing
 * version ("\\/\\d", "\\/[0-9]") cut; the rest must be literal (literalToken).
 */
function counterName(pattern: string): string | null {
  const p = pattern.replace(/\(\\s\|\\\+\)|\[\\\+\\s\]|\\s/g, " ")
    .replace(/\\\/(?:\\d|\[0-9\])(?:\{[\d,]+\}|\+)?(?:\.\\d)?$/, "")
    .replace(/\\\/\d(?:\.\d)*$/, "");
  const name = literalToken(p);
  return name && !name.includes("@") ? name : null;
}

/**
 * The entries' regexes (quotes unescaped) in uap-core's user-agent parsers (the vendored section) under a comment
 * `section` matches, up to the next comment.
 */
async function uapSection(section: RegExp): Promise<string[]> {
  const lines = await Deno.readTextFile(`${root}lib/crawl/sources/uap-core-user-agent-parsers.yaml`);
  const out: string[] = [];
  let inside = false;
  for (const line of lines.split("\n")) {
    const note = /^\s*#(.*)$/.exec(line);
    if (note) {
      inside = section.test(note[1]);
      continue;
    }
    const regex = /^\s*- regex: '(.*)'\s*$/.exec(line);
    if (regex && inside) out.push(regex[1].replaceAll("''", "'"));
  }
  return out;
}

/**
 * The names in uap-core's user-agent parsers for bots: the alternatives of the first group of each entry under a
 * "# Bots" comment that are one literal name ("CrawlDaddy", "Lijit Crawler").
 */
async function uapBotNames(): Promise<string[]> {
  const names: string[] = [];
  for (const regex of await uapSection(/^\s*Bots\b/)) {
    const group = /\(((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*)\)/.exec(regex)?.[1] ?? "";
    for (const alt of splitAlternatives(group)) {
      const name = literalToken(alt);
      if (name) names.push(name);
    }
  }
  return names;
}

/**
 * The podcast apps uap-core's user-agent parsers name under their "# Podcast catchers" comment: each literal
 * alternative of an entry's first group ("AntennaPod", "gPodder", "Player FM"), lower case.
 */
async function uapPodcastNames(): Promise<string[]> {
  const names: string[] = [];
  for (const regex of await uapSection(/^\s*Podcast catchers\s*$/)) {
    for (const alt of splitAlternatives(familyPart(regex))) {
      const name = literalToken(alt);
      if (name) names.push(name.toLowerCase());
    }
  }
  return names;
}

/** fnando/browser's description of a bot → our category (its lists have no tags). */
function describedCategory(description: string): CatalogCategory {
  const d = description.toLowerCase();
  if (/uptime|monitor|status|ping|availability|performance|speed/.test(d)) return "monitoring";
  if (/feed|rss|podcast|newsletter/.test(d)) return "feed_fetcher";
  if (/archiv/.test(d)) return "archiver";
  if (/preview|link expan|unfurl|thumbnail|screenshot|embed/.test(d)) return "social_preview";
  if (/secur|vulnerab|scanner|malware/.test(d)) return "security_scanner";
  if (/seo|backlink|marketing|advert|\bads?\b|brand|rank/.test(d)) return "seo_tool";
  if (/search engine|spider$/.test(d)) return "search_engine";
  return "other";
}

/** GoAccess's kinds that are automation → our category; its other kinds are browsers, apps and libraries. */
const GOACCESS_KINDS: Record<string, CatalogCategory> = {
  Crawlers: "other",
  Uptime: "monitoring",
  Security: "security_scanner",
  Performance: "monitoring",
  Caching: "other",
  Citation: "other",
};

/** Our category as the list tag addListed reads. */
function categoryTags(category: CatalogCategory): string[] {
  const tag = LIST_CATEGORY.find(([, c]) => c === category)?.[0];
  return tag ? [tag] : [];
}

/** opawg/user-agents-v2's bot entries the catalog holds otherwise (docs/crawlers.md). */
const OPAWG_SKIPPED = new Set([
  "Microsoft Office", // its `ms-office; MSOffice` is one of the Office entry's names (OFFICE_OWN_AGENTS)
  // plain words that name other things too: a sync service's "Beacon", "parc", and the BitTorrent client
  // Transmission people download with; PowerShell stays other automation by its sign (automation_signs.ts)
  "Beacon Podcast Sync",
  "parc",
  "Transmission",
  "Windows PowerShell",
]);

/**
 * The names Office and Outlook give their own requests (link checks, mail image fetches), lower case: Office's
 * own stack ("Microsoft Office/16.0 (…; Microsoft Outlook 16.0.x; Pro)", "Microsoft Office Existence Discovery"),
 * the tokens Office adds to the system's MSIE agent ("ms-office; MSOffice 16", "Microsoft Outlook 15.0.4420"),
 * Outlook Express's, Mac Outlook's and Outlook mobile's own agents. Not "Outlook" alone: the new Outlook's
 * webview says "OneOutlook", Outlook mobile's in-app browser "Outlook-iOS-Android".
 */
const OFFICE_OWN_AGENTS = [
  "microsoft office",
  "ms-office",
  "msoffice",
  "microsoft outlook",
  "outlook-express",
  "macoutlook",
  "outlook-ios",
  "outlook-android",
  // Outlook's cloud service probing a mail server's settings for the app ("OutlookMobileCloudService-Autodetect/
  // 1.0.0", agentzero's test agent; eighteenth round)
  "outlookmobilecloudservice",
];

/**
 * Yauaa's named robots that are HTTP libraries, runtimes or CI tools (they stay other automation, like the other
 * lists' libraries) and a browser (Tencent Traveler, which browscap also files among robots).
 */
const YAUAA_SKIPPED = /^(?:node\.js|spray-can|Apache[-_ ]|ServiceStack|gitlab-|TencentTraveler)/i;

/**
 * uap-core's bot names that name people's software: the desktop feed reader BlogBridge (desktop feed readers are
 * people's, as for browscap's), the 3D modeller Google SketchUp, the reading app Read Later and SiteCon, which
 * browscap files among people's applications and uap-core's own tests as a browser-shaped app.
 */
/**
 * uap-core's "Podcast catchers" names (the section runs on past that comment's entries) that are a player, a
 * library or a service, not a podcast app, or a plain word another agent could start with ("Fancy", "Doppler").
 */
const UAP_NOT_PODCAST_APPS = new Set([
  "okhttp",
  "radio",
  "exoplayerdemo",
  "quicktime",
  "podcasts",
  "spotify",
  "wmplayer",
  "nsplayer",
  "zune",
  "vlc",
  "alexamediaplayer",
  "mediago",
  "replay",
  "vox",
  "fancy",
  "doppler",
  "cita",
]);

const UAP_BOTS_SKIPPED = new Set(["BlogBridge", "Google SketchUp", "Read%20Later", "SiteCon"]);

/**
 * OWASP CRS's names that are ordinary words or other things' names too ("Hydra" also named a person's browser in
 * the held-out part, "Vega", "ACHE", "black widow"), a scraping library ("colly": libraries stay other automation) and Yauaa's forged "Mozlila", which FORGED in
 * automation_signs.ts reads as a forged agent, not a scanner's name.
 */
const CRS_SKIPPED = new Set(["hydra", "vega", "ache", "black widow", "mozlila", "colly"]);

/**
 * isbot's literal patterns that are ordinary words or people's software, not a crawler's name: it reads them as
 * "is a bot" by the word ("manager", "parser", "radar"); the browser Sogou, Firefox's FirePHP extension and the
 * Chrome Frame plugin are people's.
 */
const ISBOT_WORDS = new Set([
  ...[
    "24x7",
    "abuse",
    "advisor",
    "analyzer",
    "archive",
    "audit",
    "capture",
    "catch",
    "checker",
    "classifier",
  ],
  ...[
    "cloudflare",
    "crawl",
    "detect",
    "discovery",
    "download",
    "feed",
    "fetcher",
    "grab",
    "headless",
    "inspect",
  ],
  ...[
    "insight",
    "library",
    "linkcheck",
    "manager",
    "measure",
    "optimize",
    "parser",
    "preview",
    "proxy",
    "radar",
  ],
  ...[
    "retriever",
    "rigor",
    "scrape",
    "server",
    "spider",
    "splash",
    "synapse",
    "synthetic",
    "tools",
    "torrent",
  ],
  ...["transcoder", "url", "validator", "virtuoso", "sogou", "firephp", "chromeframe"],
]);

/**
 * The category of an isbot name whose maker says what it is (its name does not): Neustar's Web Performance
 * Management, ip-label, InfraWatch and TestLocally test pages from outside, Functionize runs test automation,
 * Burp Collaborator receives a scanner's out-of-band probes.
 */
const ISBOT_CATEGORY: Record<string, CatalogCategory> = {
  "neustar wpm": "monitoring",
  "iplabel": "monitoring",
  "infrawatch": "monitoring",
  "testlocally": "monitoring",
  "functionize": "monitoring",
  "burpcollaborator": "security_scanner",
};

/**
 * hexydec/agentzero's robots that are people's software or name a platform, not a crawler: desktop and mobile
 * mail, messaging and time-tracking apps (Apple Mail's Exchange client among them), TeamViewer's protocol, Apple's
 * networking stack, a fediverse server's name that its people's clients share, WordPress itself (its pingbacks say
 * so in their own words); libraries and PowerShell, which their signs name; plain phrases the automation words
 * read already ("Link Preview"); spellings of names the catalog holds otherwise ("Claude User" for Claude-User); a
 * word phones are named by ("XBot_Senior", browscap's test agent).
 */
const AGENTZERO_SKIPPED = new Set([
  "appleexchangewebservices",
  "grpc-python",
  "powershell",
  "link preview",
  "url preview",
  "claude user",
  "claude web",
  "xbot",
  "emclient",
  "manictime",
  "yik yak",
  "snapchat",
  "whatsapp",
  "flipboard",
  "dyngate",
  "cfnetwork",
  "pleroma",
  "wordpress",
  "asana",
  "the lounge irc client",
  "outlook-android",
  "outlook-ios",
  "headlesschrome",
  "moblie",
  "mozlila",
]);

/** hexydec/agentzero's categories → ours (its crawler and scraper kinds take the category the name says). */
const AGENTZERO_CATEGORY: Record<string, CatalogCategory> = {
  search: "search_engine",
  ads: "seo_tool",
  ai: "ai_training",
  feed: "social_preview",
  monitor: "monitoring",
  validator: "monitoring",
};

/**
 * Robots of more-names.tsv that are people's software: arp242/isbot lists the Alexa Toolbar's token, a browser
 * add-on in people's agents (Yauaa's browser add-ons, which the add-on domain exemption reads).
 */
/**
 * Robots of extra-names.tsv that are people's software, libraries or tools (twenty-third round): ua-parser2 files
 * browser toolbars and add-ons (StumbleUpon, GoogleToolbar, Websearch4u, RMSnapKit), apps (Bing's `BingWeb`,
 * SketchUp, `Read%20Later`, the feed reader BlogBridge, which uap-core's list skips too), a download manager
 * (QQDownload), a VPN client (PAN GlobalProtect), the site manager SiteCon, a proxy (OSSProxy), a history
 * search tool (HistoryHound), an IDE (JetBrains) and storage clients (s3fs, JetS3t) among its bots; taking them
 * flagged people's agents of the own parts (browscap's, uap-core's, Yauaa's and the libs part's). `KiwiStatus` is a
 * shorter spelling of uap-core's `KiwiStatus Spider`, a local search engine's crawler its "Status" made a monitor.
 */
const EXTRA_SKIPPED = new Set([
  ...[
    "stumbleupon",
    "googletoolbar",
    "websearch4u",
    "rmsnapkit",
    "bingweb",
    "google sketchup",
    "read%20later",
  ],
  ...["blogbridge", "qqdownload", "pan globalprotect", "sitecon", "ossproxy", "historyhound", "jetbrains"],
  ...["s3fs", "jets3t", "kiwistatus"],
]);
/** The category an extra-names.tsv robot's source states where its name does not (ua-parser2's bot::monitor). */
const EXTRA_CATEGORY: Record<string, CatalogCategory> = {
  "sitescope": "monitoring",
  "ghost inspector": "monitoring",
  "elb-healthchecker": "monitoring",
};
const MORE_ROBOTS_SKIPPED = new Set(["alexatoolbar"]);
/**
 * The category a more-names.tsv robot's source says where its name does not: arp242/isbot's comment on
 * `RuxitRecorder/` ("Dynatrace performance monitor"), and httpagentparser's and Browser.php's API monitor
 * Runscope Radar.
 */
const MORE_ROBOTS_CATEGORY: Record<string, CatalogCategory> = {
  "ruxitrecorder": "monitoring",
  "runscope-radar": "monitoring",
};
/** People's names of more-names.tsv left out: user-agent-utils' `Moozilla`, a misspelling browscap files as a bot. */
const MORE_PEOPLE_SKIPPED = new Set(["moozilla"]);

/**
 * A list's category this project corrects, with why: App Engine's URL fetch service sends `AppEngine-Google` for
 * whatever an application hosted there fetches (feeds, link previews, scans), no search engine's crawl
 * (crawler-user-agents tags it search-engine).
 */
const CATEGORY_CORRECTED: Record<string, CatalogCategory> = { "appengine-google": "other" };

/** The lists added with names only, whose names yield to the crawlers the catalog already names. */
const NAMES_ONLY_LISTS = new Set([
  // not names-only, but a newer list whose names should not take an agent from a crawler already named
  "opawg/user-agents-v2",
  "COUNTER-Robots",
  "fnando/browser",
  "GoAccess",
  "uap-core bots",
  "browscap",
  "nielsbasjes/yauaa robots",
  "OWASP CRS scanners",
  "OWASP CRS crawlers",
  "isbot patterns",
  "hexydec/agentzero",
  "more parsers' robots",
  "extra parsers' robots",
]);

/** The leftmost, longest of the tokens in a lower-case agent, bounded by non-alphanumerics (as classify.ts). */
function leftmostToken(tokens: string[], ua: string): string | null {
  let best: { at: number; token: string } | null = null;
  for (const t of tokens) {
    const at = boundedIndex(ua, t);
    if (at < 0) continue;
    if (!best || at < best.at || (at === best.at && t.length > best.token.length)) best = { at, token: t };
  }
  return best?.token ?? null;
}

/** Where a token first stands in a lower-case agent bounded by non-alphanumerics, or -1. */
function boundedIndex(ua: string, t: string): number {
  let at = ua.indexOf(t);
  while (at >= 0) {
    if (!/[a-z0-9]/.test(ua[at - 1] ?? "") && !/[a-z0-9]/.test(ua[at + t.length] ?? "")) return at;
    at = ua.indexOf(t, at + 1);
  }
  return -1;
}

/** A names-only list's name that says what it is. */
const SAYS_AUTOMATION = /bot|crawl|spider|scan|fetch|check|monitor|uptime|archiv|scrap|seo/i;

/** Names-only lists' entries that are no crawler's name: agent conventions, libraries, bare rule words. */
const NOT_A_CRAWLER_NAME =
  /mozilla|^opera\b|firefox|gecko|user[-_ ]?agent|brows|http|php|coldfusion|\bpackage\b|^(?:bot|crawl|crawler|spider|robot|scan)$/i;

/** Words that say a list name is automation whatever else it could mean. */
const CRAWLER_WORD =
  /bot|spider|spyder|crawl|scan|grab|fetch|sucker|download|extract|harvest|collect|copier|leech|ripper|siphon|whack|stripper|reaper|vampire|walker|seo|rank|link|index|search/i;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The lists' tags and categories that mean a library or a driver, not a crawler. */
const TOOL_TAGS = new Set(["http-library", "browser-automation", "programmatic", "webhook"]);
/** The lists' tags and categories → ours, most telling first. */
const LIST_CATEGORY: [string, CatalogCategory][] = [
  ["ai-crawler", "ai_training"],
  ["ai", "ai_training"],
  ["scanner", "security_scanner"],
  ["feed-reader", "feed_fetcher"],
  ["feedfetcher", "feed_fetcher"],
  ["archiver", "archiver"],
  ["archive", "archiver"],
  ["social-preview", "social_preview"],
  ["preview", "social_preview"],
  ["social", "social_preview"],
  ["monitoring", "monitoring"],
  ["monitor", "monitoring"],
  ["seo", "seo_tool"],
  ["optimizer", "seo_tool"],
  ["advertising", "seo_tool"],
  ["search-engine", "search_engine"],
];
function listCategory(tags: string[]): CatalogCategory {
  for (const [tag, category] of LIST_CATEGORY) if (tags.includes(tag)) return category;
  return "other";
}

/**
 * A list's pattern when it is one literal name ("Googlebot\\/" → "Googlebot", "[wW]get" → "wget"), else null:
 * patterns with alternatives, wildcards or anchors in the middle say more than a name and stay out.
 */
export function literalToken(pattern: string): string | null {
  let p = pattern.replace(/^\^/, "").replace(/\$$/, "");
  p = p.replace(
    /\[([a-zA-Z])([a-zA-Z])\]/g,
    (m, a: string, b: string) => a.toLowerCase() === b.toLowerCase() ? a : m,
  );
  p = p.replace(/\\([/.\- _:;!])/g, "$1").replace(/\/$/, "").replace(/^[ ;(]+|[ ;(]+$/g, "");
  if (/[\\[\](){}|?*+^$]/.test(p)) return null;
  if (p.length < 4 || !/[a-z]/i.test(p) || !/^[a-z0-9]/i.test(p) || !/[a-z0-9]$/i.test(p)) return null;
  return p;
}

/** Known human product tokens, from ua-parser-js's browser rules and the curated list, each with its source. */
async function buildHumanTokens(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  // ua-parser-js (MIT), the version deno.json pins: the names in its browser rules' patterns
  const pkg = `${root}node_modules/ua-parser-js`;
  const version = JSON.parse(await Deno.readTextFile(`${pkg}/package.json`)).version;
  const src = await Deno.readTextFile(`${pkg}/src/ua-parser.js`);
  const browserRules = src.slice(src.indexOf("browser : [["), src.indexOf("cpu : [["));
  for (const literal of browserRules.match(/^\s*\/(?:[^/\n\\]|\\.)+\/[gi]*/gm) ?? []) {
    for (const word of regexWords(literal.trim())) {
      // the rules also name headless browsers; those stay automation
      if (!/headless|phantom|slimer/.test(word)) out[word] ??= `ua-parser-js ${version} browser rules`;
    }
  }
  for (const [source, tokens] of Object.entries(CURATED_HUMAN_TOKENS)) {
    for (const t of tokens) out[t.toLowerCase()] ??= source;
  }
  return out;
}

/**
 * People's browsers and apps as ua-parser/uap-core's user-agent parsers name them (Apache-2.0; the section is
 * copied in lib/crawl/sources/ with its commit). An entry whose comment, pattern or family speaks of bots,
 * crawlers, headless or scripted clients, libraries or SDKs is left out, and so is a name an automation sign
 * claims or the catalog holds: these names make an agent a person's, never a crawler's.
 */
async function uapHumanNames(catalogMatches: Set<string>): Promise<string[]> {
  const text = await Deno.readTextFile(`${root}lib/crawl/sources/uap-core-user-agent-parsers.yaml`);
  const names = new Set<string>();
  let comment = "", pattern = "", family = "";
  const flush = () => {
    // the comment and family judge the entry; the pattern's words one by one, since one alternation may list
    // browsers beside a crawler ("…|Epiphany|Googlebot|kmail2|…")
    if (pattern && !UAP_AUTOMATION.test(`${comment} ${family}`)) {
      for (const w of regexWords(`/${familyPart(pattern)}/`)) {
        // libraries by their naming conventions ("minio-go", "pyamf") are no person's client either
        if (
          UAP_AUTOMATION.test(w) || /http|secur|^sap\b/.test(w) || w.length < 3 ||
          /[-_]$|^py|-go$|^go-|headless|phantom|slimer/.test(w) ||
          automationSign(w)
        ) {
          continue;
        }
        if (catalogMatches.has(w) || [...catalogMatches].some((m) => m.length > 4 && w.includes(m))) continue;
        names.add(w);
      }
    }
    comment = pattern = family = "";
  };
  for (const line of text.split("\n")) {
    const regex = /^\s*- regex: '(.*)'\s*$/.exec(line);
    const fam = /^\s+family_replacement: '(.*)'\s*$/.exec(line);
    const note = /^\s*#(.*)$/.exec(line);
    if (regex) {
      const keep = comment;
      flush();
      comment = keep;
      pattern = regex[1].replaceAll("''", "'");
    } else if (fam) family = fam[1];
    else if (note) {
      if (pattern) flush();
      comment += note[1];
    } else if (line.trim() === "" && pattern) flush();
  }
  flush();
  return [...names].sort();
}
/**
 * The part of a uap-core pattern that is the family it reports: its first capturing group ("(Sparrow)",
 * "(AlohaBrowser|ABB)/…"), or the whole pattern when it captures nothing. The words around the group are
 * context ("Windows", "compatible", "Mobile"), not names.
 */
function familyPart(pattern: string): string {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === "\\") {
      i++;
      continue;
    }
    if (pattern[i] !== "(" || pattern[i + 1] === "?") continue;
    let depth = 0;
    for (let j = i; j < pattern.length; j++) {
      if (pattern[j] === "\\") j++;
      else if (pattern[j] === "(") depth++;
      else if (pattern[j] === ")" && --depth === 0) return pattern.slice(i + 1, j);
    }
  }
  return pattern;
}
/** What in a uap-core entry's comment, pattern or family says it is automation, not a person's client. */
const UAP_AUTOMATION =
  /bot|spider|crawl|scrap|headless|automat|librar|sdk|http.?client|request|fetch|monitor|check|ping|ptst|webpagetest|proxy|preview|feed ?parser|download(?:er)?\b|sync|cli\b|curl|wget|api|cloud|server|update|agent/i;

const humanWords = new Set<string>();

/**
 * People's browsers, apps, mail clients, media players and feed readers as browscap names them
 * (lib/crawl/sources/browscap-people.tsv, from scripts/extract_browscap_bots.ts), lower case. A plain word
 * ("Access", "Radio", "Origin") or a name of under four letters could be anything's; names an automation sign
 * claims (headless browsers, "Lavf"), that speak of automation as uap-core's entries may, that the catalog holds
 * or that are server-side converters and installers or command-line file-transfer tools (lftp, OpenBSD ftp)
 * browscap files as applications stay out.
 */
async function browscapPeopleNames(catalogMatches: Set<string>): Promise<string[]> {
  const names = new Set<string>();
  for (const line of await sourceLines("browscap-people.tsv")) {
    const name = line.split("\t")[0];
    const lower = name.toLowerCase();
    if (/^[A-Z]?[a-z]+$/.test(name) || lower.replace(/[^a-z0-9]/g, "").length < 4) continue;
    if (automationSign(name) || automationSign(`${name}/1.0`) || UAP_AUTOMATION.test(lower)) continue;
    if (/headless|phantom|slimer|pdf|prince|installatron|kenshoo|media players|^mozilla$|ftp\b/.test(lower)) {
      continue;
    }
    if (catalogMatches.has(lower) || [...catalogMatches].some((m) => m.length > 4 && lower.includes(m))) {
      continue;
    }
    names.add(lower);
  }
  return [...names].sort();
}

/**
 * The products browscap's people's software writes right after a whole browser agent's own product
 * (lib/crawl/sources/browscap-addons.tsv, MIT: "… Chrome/* Safari/* Seznam.cz/*", "… Safari/* Polarity/*"), as
 * known tokens only: the structural rule asks about exactly that place, so a plain word (Polarity, Epic) is safe
 * there though not as an agent's first word. PDF converters and installers stay out as for browscap's names, and
 * so do names an automation sign or uap-core's automation words claim and catalog names.
 */
async function browscapAddOnNames(catalogMatches: Set<string>): Promise<string[]> {
  const names = new Set<string>();
  for (const line of await sourceLines("browscap-addons.tsv")) {
    const lower = line.split("\t")[0].toLowerCase();
    if (lower.replace(/[^a-z]/g, "").length < 2) continue;
    if (automationSign(lower) || automationSign(`${lower}/1.0`) || UAP_AUTOMATION.test(lower)) continue;
    if (/headless|phantom|slimer|pdf|prince|installatron|kenshoo/.test(lower)) continue;
    if (catalogMatches.has(lower)) continue;
    names.add(lower);
  }
  return [...names].sort();
}

/**
 * People's podcast and audio apps as opawg/user-agents-v2 names them (lib/crawl/sources/opawg-apps.json, MIT):
 * the literal alternatives of each entry's pattern that its own sample agents hold, lower case, version cut, with
 * the same filters as browscap's people's names (plain words, under four letters, automation signs and words,
 * catalog names).
 */
/**
 * An opawg pattern's alternatives: its top-level "|" parts, and each part with one inner group of plain words
 * written out ("^Blubrry (Podcasting|PowerPress)/\\d" → "^Blubrry Podcasting/\\d", "^Blubrry PowerPress/\\d").
 */
export function opawgAlternatives(pattern: string): string[] {
  return pattern.replace(/^\^?\((.*)\)$/, "$1").split(/\|(?![^(]*\))/).flatMap((alt) => {
    const m = /\(([\w. -]+(?:\|[\w. -]+)+)\)/.exec(alt);
    if (!m) return [alt];
    return m[1].split("|").map((w) => alt.slice(0, m.index) + w + alt.slice(m.index + m[0].length));
  });
}

/**
 * An opawg pattern alternative with its version part cut: a written version ("/1.0", " 2"), a digit class after a
 * slash, space or hyphen ("^Podcini/\\d", "^Castria/\\d", "^SoundWaves-\\d", "^castero \\d") or a bare separator
 * ("^Castro[/ ]"); a space written either way ("Kids(%20| )Listen") or optional ("Moon ?FM") as a space, an
 * optional part left out ("Airr(%20Beta)?").
 */
export function opawgVersionCut(alt: string): string {
  return alt
    .replace(/\((?:%20\|(?: |\\s)|(?: |\\s)\|%20)\)/g, " ")
    // an optional space is a space ("^Moon ?FM/"), an optional part is left out ("^Airr(%20Beta)?/")
    .replace(/ \?/g, " ")
    .replace(/\([^()|]*\)\?/g, "")
    .replace(/(?:\\?\/| |\\?-|\[\/ \])(?:v?\d+(?:\\?\.\d+)*(?:\\d)?|\\d[*+]?)?\$?$/, "");
}

/** A name's first word, lower case ("Naver Whale Browser", "Yandex LLC", "YaApp_iOS": naver, yandex, yaapp). */
const firstWord = (name: string) => name.toLowerCase().split(/[\s_.-]/)[0];

/** Where lib/crawl/sources/human-names.tsv's names come from, as human_tokens.json says it. */
const PARSER_SOURCES: Record<string, string> = {
  "ua-parser-js@1.0.41": "ua-parser-js 1.0.41 browser, engine and OS names (MIT)",
  "hexydec/agentzero@83c4b5e": "hexydec/agentzero browser and app mappings (MIT)",
  "bowser@2.15.1": "bowser browser names (MIT)",
  "HaraldWalker/user-agent-utils@7f95451": "user-agent-utils browser and e-mail client names (BSD-3-Clause)",
  "bestiejs/platform.js@44978b2": "platform.js browser names (MIT)",
  "shon/httpagentparser@389296c": "httpagentparser browser names (MIT)",
  "sinergi/php-browser-detector@b63c08b": "php-browser-detector browser names (MIT)",
  "woothee/woothee@998c6ec": "woothee browser names (Apache-2.0)",
  "arp242/isbot@305a021": "arp242/isbot known browsers (MIT)",
  "debian-bookworm": "Debian 12 packages of browsers, mail clients, feed readers and media players",
  "commenthol/ua-parser2@7f7b77a":
    "commenthol/ua-parser2 browser, mail, feed, podcast and media app names (Apache-2.0)",
};

/**
 * The own corpus parts' crawler and automation agents (never the held-out part): the names they are known by,
 * every product token and the name a "(compatible; …)" part gives. A parser's name among them is a bot's too.
 */
async function ownAutomatedNames(): Promise<Set<string>> {
  const dirs = [
    "user_agents",
    ...["agents", "agents/added", "agents/uapjs", "agents/opawg", "agents/yauaa", "agents/more"],
    ...["agents/libs", "agents/uapres", "agents/agentzero", "agents/sniff"],
  ];
  const names = new Set<string>();
  for (const dir of dirs) {
    for (const set of ["crawlers", "automation"]) {
      let text = "";
      try {
        text = await Deno.readTextFile(`${root}tests/fixtures/${dir}/${set}.txt`);
      } catch {
        continue; // a part without that set
      }
      for (const line of text.split("\n")) {
        const ua = line.slice(line.lastIndexOf("\t") + 1);
        for (const { name } of productTokens(ua)) names.add(name);
        const compatible = /\(compatible; ?([^;)/]+)/i.exec(ua)?.[1].trim().toLowerCase();
        if (compatible) names.add(compatible);
      }
    }
  }
  return names;
}

/**
 * The names in lib/crawl/sources/human-names.tsv (scripts/extract_human_names.ts: ua-parser-js 1.0.41's browser
 * and engine rules, agentzero's browser and app mappings, bowser's browsers), then more-names.tsv's and
 * extra-names.tsv's people's names, lower case, with their source and
 * kind. Left out: a name the catalog holds or that holds a catalog name (bowser's Googlebot, agentzero's
 * FlipboardProxy), one an automation sign claims or that speaks of automation (PhantomJS, "Google Web Preview"),
 * and one an own corpus part's crawler or automation agent is known by.
 */
async function parsersHumanNames(catalog: CatalogEntry[]): Promise<[string, string, string][]> {
  const catalogMatches = new Set(catalog.flatMap((e) => e.match));
  // a crawler vendor's name starts its crawlers' agents too (the catalog's Yandex and Baidu entries' vendors)
  const vendors = new Set(catalog.flatMap((e) => e.vendor ? [firstWord(e.vendor)] : []));
  const automated = await ownAutomatedNames();
  const out = new Map<string, [string, string, string]>();
  const left: string[] = [];
  const lines = [
    ...await sourceLines("human-names.tsv"),
    // the people's names of more parsers and Debian's package data (twenty-first round), after the three above
    ...(await sourceLines("more-names.tsv")).filter((l) =>
      !l.endsWith("\trobot") && !MORE_PEOPLE_SKIPPED.has(l.split("\t")[0].toLowerCase())
    ),
    // the browser and app names of commenthol/ua-parser2 (twenty-third round; extra-names.tsv), after those: not a
    // plain word ("Light", "Spark", "Groups", "Messenger"), nor a short or a joined fragment ("ADM",
    // "Samsung;SmartTV", "iBrowser/Mini")
    ...(await sourceLines("extra-names.tsv")).filter((l) => {
      const name = l.split("\t")[0];
      return !l.endsWith("\trobot") && name.length >= 4 && !/^[A-Z]?[a-z]+$/.test(name) && !/[;/]/.test(name);
    }),
  ];
  for (const line of lines) {
    const [name, from, kind] = line.split("\t");
    const lower = name.toLowerCase();
    if (out.has(lower)) continue;
    const claimed = catalogMatches.has(lower) ||
      [...catalogMatches].some((m) =>
        (m.length > 4 && lower.includes(m)) ||
        (m.startsWith(lower) && !/[a-z0-9]/.test(m[lower.length] ?? ""))
      ) || vendors.has(firstWord(lower)) ||
      automationSign(name) !== null || automationSign(`${name}/1.0`) !== null || UAP_AUTOMATION.test(lower) ||
      /headless|phantom|slimer/.test(lower);
    if (claimed || automated.has(lower)) {
      left.push(lower);
      continue;
    }
    out.set(lower, [lower, PARSER_SOURCES[from] ?? from, kind]);
  }
  console.log(`parsers' people's names: ${out.size} kept, left out: ${left.join(", ")}`);
  return [...out.values()];
}

async function opawgAppNames(catalogMatches: Set<string>, crawlerSamples: string[]): Promise<string[]> {
  const apps = JSON.parse(await Deno.readTextFile(`${root}lib/crawl/sources/opawg-apps.json`)) as {
    entries: { pattern: string; examples?: string[] }[];
  };
  // a name the crawler lists' own sample agents (and opawg's bots') start with is a crawler's there ("FeedFlow/1.0",
  // "BTWebClient/180B(9704)" in crawler-user-agents): it stays out
  const crawlerFirst = (lower: string) =>
    crawlerSamples.some((ua) => ua.startsWith(lower) && !/[a-z0-9]/.test(ua[lower.length] ?? ""));
  const names = new Set<string>();
  for (const e of apps.entries) {
    // a plain word is taken only where the entry's pattern anchors it at the agent's start ("^Ampache/\d") and a
    // sample agent is that name alone, with at most a version ("Ampache/6.3.1", "Zeno"): the app sends nothing
    // else (an app on Apple's or Android's stack, "Audio/105 CFNetwork/…", is a person's by its stack already)
    const anchored = /^\^[A-Za-z]/.test(e.pattern) && !e.pattern.includes("|") &&
      (e.examples ?? []).some((ua) => /^[A-Za-z][\w.-]*(?:[/ ]v?[\d.]+)?$/.test(ua));
    for (const alt of e.pattern.replace(/^\^?\((.*)\)$/, "$1").split("|")) {
      const name = literalToken(opawgVersionCut(alt));
      // since the fourteenth round also a plain word its own anchored alternative starts with, when a sample is
      // that name alone with at most a version and the app's home page as podcast apps write it
      // ("^Castria/\d": "Castria/1.0 (+https://castria.app)"; "^Bullhorn(/.*)?$|^Bullhorn \(": "Bullhorn")
      const alone = name !== null && alt.startsWith("^") &&
        (e.examples ?? []).some((ua) =>
          ua.toLowerCase().startsWith(name.toLowerCase()) &&
          /^(?:[/ ]v?[\d.]+)?(?: \(\+https?:\/\/[^\s()]+\))?$/.test(ua.slice(name.length))
        );
      if (
        !name || (!anchored && !alone && /^[A-Z]?[a-z]+$/.test(name)) ||
        name.replace(/[^a-z0-9]/gi, "").length < 4
      ) {
        continue;
      }
      const lower = name.toLowerCase();
      if (!(e.examples ?? []).some((ua) => ua.toLowerCase().includes(lower))) continue;
      // GNOME's virtual file system fetches for any program: an OS component, other automation (docs/crawlers.md)
      if (lower === "gvfs") continue;
      if (automationSign(name) || automationSign(`${name}/1.0`) || UAP_AUTOMATION.test(lower)) continue;
      if (catalogMatches.has(lower) || [...catalogMatches].some((m) => m.length > 4 && lower.includes(m))) {
        continue;
      }
      if (crawlerFirst(lower)) continue;
      names.add(lower);
    }
  }
  return [...names].sort();
}

/**
 * People's browsers and apps as Yauaa's test cases name them (lib/crawl/sources/yauaa-people.tsv, Apache-2.0,
 * the tests of the Yauaa corpus part only): a product token of the test's own agent that is the name Yauaa
 * gives, spaces and signs left out, or starts with it ("Qwant" → "qwantmobile", "qwantios"). A one-word name
 * ("Monday", "Shift", "Wallet") is taken only for a browser: an app's plain word could be anything's. Names an
 * automation sign claims ("WindowsPowerShell"), a tool's words, uap-core's automation words and catalog names
 * stay out, as for the other lists.
 */
/**
 * Yauaa's test placeholders and its author's markers (an "appname/1.2-appversion" template, "Basjes", the bug
 * bounty marker "ni3lsBasj3s", random strings), build and container tools its tests call apps (Maven, Docker's
 * client) and a distribution's name: no product a person's agent is known by.
 */
const YAUAA_PEOPLE_SKIPPED =
  /^(?:appname|basjes|basjesapp|ni3lsbasj3s|xxx_app|izshjuzst|apache-maven|docker-client|debian)$/;

async function yauaaPeopleNames(catalogMatches: Set<string>): Promise<string[]> {
  const names = new Set<string>();
  for (const line of await sourceLines("yauaa-people.tsv")) {
    const [name, agentClass, agent] = line.split("\t");
    const key = name.toLowerCase().replace(/[^a-z0-9]/g, "");
    if (key.length < 4 || (/^[A-Z]?[a-z]+$/.test(name) && agentClass !== "Browser")) continue;
    for (const { name: token } of productTokens(agent)) {
      const plain = token.replace(/[^a-z0-9]/g, "");
      if (
        plain !== key &&
        !(plain.startsWith(key) && /^[a-z0-9]*$/.test(token.slice(key.length).replace(/[-_]/g, "")))
      ) {
        continue;
      }
      if (automationSign(token) || automationSign(`${token}/1.0`) || UAP_AUTOMATION.test(token)) continue;
      if (/url|http|test|extract|check/.test(token) || catalogMatches.has(token)) continue;
      if (YAUAA_PEOPLE_SKIPPED.test(token)) continue;
      names.add(token);
    }
  }
  return [...names].sort();
}

/**
 * What Yauaa's test cases of people's browsers append after the whole browser agent (lib/crawl/sources/
 * yauaa-people.tsv, its "Browser" class only): extensions, toolbars and distributions a person's browser reports
 * ("… Firefox/8.8.8 FirePHP/0.2.4", "… Safari/537.4 AlexaToolbar/alxg-3.1", "… Safari/537.6+ SugarLabs/0.98").
 * Since the tenth round. The last product, right after the browser's own, with no digit in its name, four letters or
 * more, through the same
 * filters as the names above (Yauaa's placeholders, a MIME type's word, automation signs, tool words, catalog);
 * Yandex.Translate stays out: Yandex's translation proxy fetches the page for the person, as a fetcher does.
 */
const YAUAA_ADDON_SKIPPED = /^(?:appname|basjes|application|ohio-development|yandex\.translate)$/;

async function yauaaBrowserAddOns(catalogMatches: Set<string>): Promise<string[]> {
  const names = new Set<string>();
  for (const line of await sourceLines("yauaa-people.tsv")) {
    const [, agentClass, agent] = line.split("\t");
    if (agentClass !== "Browser" || !agent) continue;
    // the last product, right after the browser's own (read from the agent, not from the tokens known now, so a
    // build gives the same list whatever the last one wrote)
    const products = productTokens(agent);
    const [before, last] = products.slice(-2);
    if (
      !/^Mozilla\//.test(agent) || !before || !/^(?:safari|firefox|chrome|edg|edge|opr)$/.test(before.name)
    ) continue;
    const token = last.name;
    if (/^(?:safari|firefox|chrome|edg|edge|opr)$/.test(token) || /\d/.test(token)) continue;
    if (!/^[a-z][a-z+.-]{3,}$/.test(token) || YAUAA_ADDON_SKIPPED.test(token)) continue;
    if (automationSign(token) || automationSign(`${token}/1.0`) || UAP_AUTOMATION.test(token)) continue;
    if (/url|http|test|extract|check/.test(token) || catalogMatches.has(token)) continue;
    names.add(token);
  }
  return [...names].sort();
}

async function buildSnapshot(): Promise<Record<string, { prefixes: string[]; taken_at: string }>> {
  const seeds: Record<string, [string, string][]> = {
    "google-common": [["jonhadfield-cloud-ips__googlebot.json", "2026-08-20"]],
    "google-special": [["jonhadfield-cloud-ips__googlesc.json", "2026-08-20"]],
    "google-user-triggered": [
      ["jonhadfield-cloud-ips__googleutf.json", "2026-08-20"],
      ["sefinek__google-user-triggered-fetchers.json", "2026-05-05"],
    ],
    bingbot: [["sefinek__bingbot.json", "2026-05-05"]],
    applebot: [["jonhadfield-cloud-ips__applebot.json", "2026-09-15"]],
    duckduckbot: [["sefinek__duckduckbot.json", "2026-05-05"]],
    anthropic: [["jonhadfield-cloud-ips__anthropic.json", "2026-10-07"]],
    perplexitybot: [["sefinek__perplexitybot.json", "2026-05-05"]],
    "perplexity-user": [["sefinek__perplexity-user.json", "2026-05-05"]],
    ahrefs: [["sefinek__ahrefsbot.json", "2026-05-05"]],
    yandex: [["sefinek__yandexbot.json", "2026-05-05"]],
    meta: [["sefinek__facebookbot.json", "2026-05-05"]],
    telegrambot: [["sefinek__telegrambot.json", "2026-05-05"]],
    kagi: [["sefinek__kagi.json", "2026-05-05"]],
    pingdom: [["sefinek__pingdombot.json", "2026-05-05"]],
    uptimerobot: [["sefinek__uptimerobot.json", "2026-05-05"]],
    betterstack: [["sefinek__betterstack.json", "2026-05-05"]],
    webpagetest: [["sefinek__webpagetestbot.json", "2026-05-05"]],
    "cdn-cloudflare": [["jonhadfield-cloud-ips__cloudflare.json", "2026-08-22"]],
    "cdn-cloudfront": [["aws_cloudfront_from_ip-ranges.json", "2026-08-21"]],
    "cdn-fastly": [["jonhadfield-cloud-ips__fastly.json", "2026-08-22"]],
    "cdn-bunny": [["jonhadfield-cloud-ips__bunny.json", "2026-08-22"]],
    "cdn-cdn77": [["jonhadfield-cloud-ips__cdn77.json", "2026-08-22"]],
  };
  const out: Record<string, { prefixes: string[]; taken_at: string }> = {};
  for (const def of RANGE_LISTS) {
    const prefixes = new Set<string>();
    let takenAt = "";
    for (const [file, date] of seeds[def.id] ?? []) {
      for (const p of extractPrefixes(await Deno.readTextFile(`${dataDir}/ranges/${file}`))) prefixes.add(p);
      if (date > takenAt) takenAt = date;
    }
    out[def.id] = { prefixes: [...prefixes], taken_at: takenAt };
  }
  // OpenAI's three lists come in one aggregate file
  const openai = await readJson("ranges/jonhadfield-cloud-ips__openai.json");
  for (
    const [id, part] of [["gptbot", "gptbot"], ["oai-searchbot", "searchbot"], [
      "chatgpt-user",
      "chatgptUser",
    ]]
  ) {
    out[id] = {
      prefixes: extractPrefixes(JSON.stringify(openai[part])),
      taken_at: String(openai[part].creationTime).slice(0, 10),
    };
  }
  // Twitterbot's static list from its docs (crawlers.csv)
  out.twitterbot = {
    prefixes: ["199.16.156.0/22", "199.59.148.0/22", "192.133.76.0/22"],
    taken_at: "2026-05-05",
  };
  return out;
}

/** Sample user agents per catalog token, from crawler-user-agents.json, for the classifier tests. */
async function buildSamples(catalog: CatalogEntry[]): Promise<Record<string, string[]>> {
  const patterns = await readJson("crawler-user-agents.json") as { pattern: string; instances: string[] }[];
  const samples: Record<string, string[]> = {};
  for (const e of catalog) {
    // the names-only lists' entries have no sample agents of their own; the crawler lists' agents that hold
    // their names belong to the crawlers those lists name (build_catalog keeps the new names from taking them)
    if (NAMES_ONLY_LISTS.has(e.source)) continue;
    const found: string[] = [];
    for (const p of patterns) {
      for (const ua of p.instances ?? []) {
        const lower = ua.toLowerCase();
        const named = e.match.some((m) =>
          new RegExp(`(?<![a-z0-9])${m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![a-z0-9])`).test(lower)
        );
        if (named && found.length < 3 && ua.length <= 512 && !found.includes(ua)) found.push(ua);
      }
    }
    if (found.length) samples[e.token] = found;
  }
  return samples;
}

const humanTokens = await buildHumanTokens();
// uap-core's families before the catalog filters them: a names-only list's entry that is one of them stays out
const uapRawNames = new Set(await uapHumanNames(new Set()));
for (const w of Object.keys(humanTokens)) humanWords.add(w);
const catalog = await buildCatalog();
const AGENT_PARTS = new Set([
  ...[
    "mozilla",
    "applewebkit",
    "webkit",
    "khtml",
    "like",
    "gecko",
    "trident",
    "presto",
    "compatible",
    "mobile",
  ],
  ...["version", "android", "windows", "linux", "browser", "config", "custom"],
]);
const uapNames = await uapHumanNames(new Set(catalog.flatMap((e) => e.match)));
const UAP_SOURCE = "ua-parser/uap-core user_agent_parsers (Apache-2.0)";
const uapPodcast = (await uapPodcastNames())
  .filter((n, i, all) => all.indexOf(n) === i && !UAP_NOT_PODCAST_APPS.has(n))
  .sort();
for (const n of uapNames) humanTokens[n] ??= UAP_SOURCE;
const browscapPeople = await browscapPeopleNames(new Set(catalog.flatMap((e) => e.match)));
const BROWSCAP_SOURCE = "browscap/browscap resources (MIT)";
for (const n of browscapPeople) humanTokens[n] ??= BROWSCAP_SOURCE;
const yauaaPeople = await yauaaPeopleNames(new Set(catalog.flatMap((e) => e.match)));
const YAUAA_SOURCE = "nielsbasjes/yauaa test cases' agent names (Apache-2.0)";
for (const n of yauaaPeople) humanTokens[n] ??= YAUAA_SOURCE;
const yauaaAddOns = await yauaaBrowserAddOns(new Set(catalog.flatMap((e) => e.match)));
for (const n of yauaaAddOns) humanTokens[n] ??= "nielsbasjes/yauaa test cases' browser add-ons (Apache-2.0)";
// after the names above, so a name they give keeps their source
const browscapAddOns = await browscapAddOnNames(new Set(catalog.flatMap((e) => e.match)));
for (const n of browscapAddOns) {
  humanTokens[n] ??= "browscap/browscap people's software, the product after a browser's own (MIT)";
}
const crawlerListSamples = [
  ...(await readJson("crawler-user-agents.json") as { instances?: string[] }[]).flatMap((p) =>
    p.instances ?? []
  ),
  ...(JSON.parse(await Deno.readTextFile(`${root}lib/crawl/sources/well-known-bots.json`)) as {
    instances?: { accepted?: string[] };
  }[]).flatMap((b) => b.instances?.accepted ?? []),
].map((ua) => ua.toLowerCase());
// opawg's own bots' samples too: a name its bots start an agent with ("SiriusXM/STT-Processor/1.0") is a bot's
const opawgBotSamples = (JSON.parse(await Deno.readTextFile(`${root}lib/crawl/sources/opawg-bots.json`)) as {
  entries: { examples?: string[] }[];
}).entries.flatMap((e) => e.examples ?? []).map((ua) => ua.toLowerCase());
const opawgApps = await opawgAppNames(new Set(catalog.flatMap((e) => e.match)), [
  ...crawlerListSamples,
  ...opawgBotSamples,
]);
const OPAWG_SOURCE = "opawg/user-agents-v2 apps (MIT)";
for (const n of opawgApps) humanTokens[n] ??= OPAWG_SOURCE;
// the names ua-parser-js 1.0.41, agentzero and bowser give people's browsers, engines and apps (twentieth round),
// after every other source, so a name those give keeps their source
const parsersNames = await parsersHumanNames(catalog);
// names the curated list keeps as parts of browser agents or in-app suffixes ("WeChat", whose fetcher sends the
// name alone) stay so
const curatedParts = new Set(Object.keys(CURATED_HUMAN_TOKENS));
const parsersStandalone = new Set(
  parsersNames.map(([n]) => n).filter((n) => !curatedParts.has(humanTokens[n] ?? "")),
);
for (const [n, source] of parsersNames) humanTokens[n] ??= source;
const genericPatterns = await readJson("isbot_patterns.json") as string[];
const snapshot = await buildSnapshot();
const samples = await buildSamples(catalog);

// Data as data: JSON files imported with `with { type: "json" }` by lib/crawl/catalog_data.ts and
// lib/crawl/ranges/snapshot.ts, which only give them their types.
const catalogJson = {
  _generated: "by scripts/build_catalog.ts from ../shared/data/crawlers; do not edit by hand",
  crawlers: catalog,
  robots_only_tokens: [...ROBOTS_ONLY],
  /** omrilotan/isbot patterns: each says "automated", none says which crawler. */
  generic_bot_patterns: genericPatterns,
};
await Deno.writeTextFile(`${root}lib/crawl/catalog.json`, JSON.stringify(catalogJson, null, 1) + "\n");
// apps that send their name alone: an agent starting with one is that app (catalog_curated.ts)
const standaloneEntries: [string, string][] = [
  // first, so a name another source also gives keeps that source
  ...opawgApps.filter((n) => !AGENT_PARTS.has(n)).map((n): [string, string] => [n, OPAWG_SOURCE]),
  ...Object.entries(CURATED_STANDALONE_APPS).flatMap(([source, names]) =>
    names.map((n): [string, string] => [n, source])
  ),
  // a three-letter family ("ABB") is safe after a browser agent, not as the first word of any agent
  // nor an agent's common part or a plain word ("android", "applewebkit", "compatible"): no app's own name
  ...uapNames.filter((n) => n.length >= 4 && !AGENT_PARTS.has(n)).map((
    n,
  ): [string, string] => [n, UAP_SOURCE]),
  ...browscapPeople.filter((n) => !AGENT_PARTS.has(n)).map((n): [string, string] => [n, BROWSCAP_SOURCE]),
];
const standalone = new Set(standaloneEntries.map(([n]) => n));
// then a parser's browser or app name the others lack, not an engine's or a system's ("goanna", "tizen"), which
// start no agent of their own
for (const [n, source, kind] of parsersNames) {
  if (
    parsersStandalone.has(n) && (kind === "browser" || kind === "app") && n.length >= 4 &&
    !AGENT_PARTS.has(n) &&
    !standalone.has(n)
  ) {
    standaloneEntries.push([n, source]);
    standalone.add(n);
  }
}
await Deno.writeTextFile(
  `${root}lib/crawl/human_tokens.json`,
  JSON.stringify(
    {
      _generated:
        "by scripts/build_catalog.ts from ua-parser-js and scripts/catalog_curated.ts; do not edit by hand",
      tokens: humanTokens,
      /** Apps that send their name alone: an agent starting with one is that app (catalog_curated.ts). */
      standalone: Object.fromEntries(standaloneEntries),
      /**
       * Podcast apps uap-core names (its "Podcast catchers" entries) that are standalone apps here, beside
       * opawg's: like them they may give their home page with no platform ("gPodder/3.7.0 (+http://gpodder.org/)").
       * Players and stacks that are no podcast app ("okhttp", "QuickTime", "Radio", "Spotify") stay out.
       */
      podcast: uapPodcast.filter((n) => standalone.has(n) && !automationSign(n)),
    },
    null,
    1,
  ) + "\n",
);
await Deno.writeTextFile(
  `${root}lib/crawl/ranges/snapshot.json`,
  JSON.stringify({ _generated: catalogJson._generated, lists: snapshot }, null, 1) + "\n",
);
// The server SDK's pre-filter matches the same tokens, so the two never disagree on a known crawler.
const tokens = [...new Set(catalog.flatMap((e) => e.match))].sort();
await Deno.writeTextFile(
  `${root}sdk/server/src/crawler_tokens.ts`,
  "// Generated by scripts/build_catalog.ts from ../shared/data/crawlers. Do not edit by hand.\n" +
    "/** Lower-case user-agent tokens of the service's crawler catalog (lib/crawl/catalog.json). */\n" +
    "export const CRAWLER_TOKENS: readonly string[] = " + JSON.stringify(tokens, null, 1) + ";\n",
);
await Deno.mkdir(`${root}tests/lib/crawl`, { recursive: true });
await Deno.writeTextFile(`${root}tests/lib/crawl/ua_samples.json`, JSON.stringify(samples, null, 1) + "\n");
// keep the generated files in `deno fmt` form so a rebuild shows only real changes
const outputs = [
  "lib/crawl/catalog.json",
  "lib/crawl/human_tokens.json",
  "lib/crawl/ranges/snapshot.json",
  "tests/lib/crawl/ua_samples.json",
  "sdk/server/src/crawler_tokens.ts",
];
await new Deno.Command(Deno.execPath(), { args: ["fmt", ...outputs.map((f) => root + f)], stderr: "null" })
  .output();
console.log(
  `catalog: ${catalog.length} crawlers; lists: ${Object.keys(snapshot).length}; samples for ${
    Object.keys(samples).length
  } tokens`,
);
