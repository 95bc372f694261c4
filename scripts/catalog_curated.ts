/**
 * The curated part of the crawler catalog: every row of crawlers.csv interpreted (vendor, category,
 * verification), plus a few well-known non-AI agents with published lists (monitoring, link previews).
 * ai-robots-txt_robots.json supplies the other AI agents; these entries win where both name a token.
 */
import type { CatalogCategory, CatalogEntry } from "../lib/crawl/types.ts";

/** Tokens that only exist as robots.txt names: no request ever carries them. */
export const ROBOTS_ONLY = new Set(["google-extended", "applebot-extended", "webzio-extended"]);

/** ai.robots.txt names too generic to find inside a user agent safely; generic rules still catch them. */
export const GENERIC_AI_NAMES = new Set([
  "code",
  "cursor",
  "operator",
  "spider",
  "openai",
  "trae",
  "lcc",
  "yak",
  "useai",
  "devin",
  "novaact",
  "terra cotta",
]);

function c(
  token: string,
  vendor: string,
  category: CatalogCategory,
  verify: { lists?: string[]; rdns?: string[]; forward?: boolean } = {},
  alsoMatch: string[] = [],
  source = "crawlers.csv",
): CatalogEntry {
  return {
    token,
    match: [token.toLowerCase(), ...alsoMatch.map((m) => m.toLowerCase())],
    vendor,
    category,
    verify: { lists: verify.lists ?? [], rdns: verify.rdns ?? [], forward: verify.forward ?? true },
    source,
  };
}

/** An entry from a vendor's own crawler page (the source named is that page). */
const doc = (
  url: string,
  token: string,
  vendor: string,
  category: CatalogCategory,
  verify: { lists?: string[]; rdns?: string[]; forward?: boolean } = {},
  alsoMatch: string[] = [],
) => c(token, vendor, category, verify, alsoMatch, url);
const GOOGLE_SPECIAL =
  "https://developers.google.com/search/docs/crawling-indexing/google-special-case-crawlers";
const GOOGLE_USER =
  "https://developers.google.com/search/docs/crawling-indexing/google-user-triggered-fetchers";
const BING = "https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0";
const YANDEX = "https://yandex.com/support/webmaster/en/robot-workings/check-yandex-robots.html";
const yandexVerify = { lists: ["yandex"], rdns: ["yandex.ru", "yandex.net", "yandex.com"] };
const BAIDU = "https://help.baidu.com/question?prod_id=99&class=476&id=2996";
const baiduVerify = { rdns: ["baidu.com", "baidu.jp"], forward: false };

const googleCommon = {
  lists: ["google-common"],
  rdns: ["crawl-*.googlebot.com", "geo-crawl-*.geo.googlebot.com"],
};
const googleSpecial = { lists: ["google-special"], rdns: ["rate-limited-proxy-*.google.com"] };
// Only Google-owned fetches count; *.gae.googleusercontent.com is a Google Cloud customer's fetch, not Google's.
const googleUser = { lists: ["google-user-triggered"], rdns: ["google-proxy-*.google.com"] };
const meta = { lists: ["meta"] };

export const CURATED: CatalogEntry[] = [
  c("Googlebot", "Google", "search_engine", googleCommon, [
    "Googlebot-Image",
    "Googlebot-Video",
    "Googlebot-News",
  ]),
  c("GoogleOther", "Google", "other", googleCommon, ["GoogleOther-Image", "GoogleOther-Video"]),
  c("Google-InspectionTool", "Google", "other", googleCommon),
  c("Storebot-Google", "Google", "search_engine", googleCommon),
  c("Google-CloudVertexBot", "Google", "ai_search", googleCommon),
  c("AdsBot-Google", "Google", "other", googleSpecial, ["AdsBot-Google-Mobile"]),
  c("Mediapartners-Google", "Google", "other", googleSpecial),
  c("APIs-Google", "Google", "other", googleSpecial),
  c("Google-Safety", "Google", "other", googleSpecial),
  c("FeedFetcher-Google", "Google", "feed_fetcher", googleUser),
  c("Google-Read-Aloud", "Google", "other", googleUser),
  c("Google-Site-Verification", "Google", "other", googleUser),
  c("Google-NotebookLM", "Google", "ai_assistant", googleUser, ["Google-GeminiNotebook"]),
  c("Google-Agent", "Google", "ai_assistant", googleUser),
  c("GoogleAgent-Mariner", "Google", "ai_assistant", googleUser),
  c("GoogleAgent-URLContext", "Google", "ai_assistant", googleUser),
  c("bingbot", "Microsoft", "search_engine", { lists: ["bingbot"], rdns: ["search.msn.com"] }),
  c("Applebot", "Apple", "search_engine", { lists: ["applebot"], rdns: ["applebot.apple.com"] }),
  c("DuckDuckBot", "DuckDuckGo", "search_engine", { lists: ["duckduckbot"] }),
  c("DuckAssistBot", "DuckDuckGo", "ai_search", { lists: ["duckassistbot"] }),
  c("YandexBot", "Yandex", "search_engine", {
    lists: ["yandex"],
    rdns: ["yandex.ru", "yandex.net", "yandex.com"],
  }, ["YandexImages", "YandexVideo", "YandexMobileBot", "YandexAccessibilityBot"]),
  c("Baiduspider", "Baidu", "search_engine", { rdns: ["baidu.com", "baidu.jp"], forward: false }, [
    "Baiduspider-image",
  ]),
  c("GPTBot", "OpenAI", "ai_training", { lists: ["gptbot"] }),
  c("OAI-SearchBot", "OpenAI", "ai_search", { lists: ["oai-searchbot"] }),
  c("ChatGPT-User", "OpenAI", "ai_assistant", { lists: ["chatgpt-user"] }),
  c("OAI-AdsBot", "OpenAI", "other", { lists: ["oai-adsbot"] }),
  c("ChatGPT Agent", "OpenAI", "ai_assistant"),
  // One Anthropic file covers all three Claude agents: the user agent tells them apart.
  c("ClaudeBot", "Anthropic", "ai_training", { lists: ["anthropic"] }),
  c("Claude-User", "Anthropic", "ai_assistant", { lists: ["anthropic"] }),
  c("Claude-SearchBot", "Anthropic", "ai_search", { lists: ["anthropic"] }),
  c("anthropic-ai", "Anthropic", "ai_training"),
  c("Claude-Web", "Anthropic", "ai_assistant"),
  c("PerplexityBot", "Perplexity", "ai_search", { lists: ["perplexitybot"] }),
  c("Perplexity-User", "Perplexity", "ai_assistant", { lists: ["perplexity-user"] }),
  c("CCBot", "Common Crawl", "ai_training", { lists: ["ccbot"], rdns: ["crawl.commoncrawl.org"] }),
  c("Bytespider", "ByteDance", "ai_training"),
  c("Amazonbot", "Amazon", "ai_training", { rdns: ["crawl.amazonbot.amazon"] }),
  c("meta-externalagent", "Meta", "ai_training", meta),
  c("meta-externalfetcher", "Meta", "ai_assistant", meta),
  c("meta-webindexer", "Meta", "ai_search", meta),
  c("FacebookBot", "Meta", "ai_training", meta),
  c("facebookexternalhit", "Meta", "social_preview", meta),
  c("Twitterbot", "X", "social_preview", { lists: ["twitterbot"] }),
  c("LinkedInBot", "LinkedIn", "social_preview"),
  c("Slackbot", "Slack", "social_preview", {}, ["Slackbot-LinkExpanding", "Slack-ImgProxy"]),
  c("Discordbot", "Discord", "social_preview"),
  c("MistralAI-User", "Mistral AI", "ai_assistant", { lists: ["mistralai-user"] }),
  c("MistralAI-Index", "Mistral AI", "ai_search", { lists: ["mistralai-index"] }),
  c("cohere-ai", "Cohere", "ai_assistant"),
  c("Diffbot", "Diffbot", "other"),
  c("YouBot", "You.com", "ai_search"),
  c("AhrefsBot", "Ahrefs", "seo_tool", { lists: ["ahrefs"] }, ["AhrefsSiteAudit"]),
  c("SemrushBot", "Semrush", "seo_tool", {}, ["SemrushBot-SA", "SiteAuditBot"]),
  c("MJ12bot", "Majestic", "seo_tool"),
  c("DotBot", "Moz", "seo_tool", {}, ["rogerbot"]),
  c("PetalBot", "Huawei", "search_engine", { rdns: ["petalsearch.com"] }),
  c("SeznamBot", "Seznam.cz", "search_engine", { rdns: ["seznam.cz"] }),
  c("Slurp", "Yahoo", "search_engine", { rdns: ["crawl.yahoo.net"] }),
  c("archive.org_bot", "Internet Archive", "archiver", {}, ["ia_archiver"]),
  c("Timpibot", "Timpi", "ai_training"),
  c("ImagesiftBot", "ImageSift", "other"),
  c("omgili", "Webz.io", "ai_training", {}, ["omgilibot"]),
  c("Kangaroo Bot", "Kangaroo LLM", "ai_training"),
  c("PanguBot", "Huawei", "ai_training"),
  // beyond the table: agents with a published list, and common link previews and monitors
  c("kagi-fetcher", "Kagi", "ai_assistant", { lists: ["kagi"] }),
  c("TelegramBot", "Telegram", "social_preview", { lists: ["telegrambot"] }),
  c("WhatsApp", "Meta", "social_preview", meta),
  c("Pinterestbot", "Pinterest", "social_preview"),
  c("redditbot", "Reddit", "social_preview"),
  c("UptimeRobot", "UptimeRobot", "monitoring", { lists: ["uptimerobot"] }),
  c("Pingdom", "Pingdom", "monitoring", { lists: ["pingdom"] }, ["Pingdom.com_bot"]),
  c("Better Uptime Bot", "Better Stack", "monitoring", { lists: ["betterstack"] }),
  c("PTST", "WebPageTest", "monitoring", { lists: ["webpagetest"] }),
  c("Screaming Frog SEO Spider", "Screaming Frog", "seo_tool"),
  c("Sogou web spider", "Sogou", "search_engine", {}, ["Sogou inst spider", "Sogou Pic Spider"]),
  c("Yeti", "Naver", "search_engine"),
  // Google's special-case crawlers and user-triggered fetchers, as their pages name them
  doc(GOOGLE_SPECIAL, "Google-Adwords-Instant", "Google", "other", googleSpecial),
  doc(GOOGLE_SPECIAL, "Google-AMPHTML", "Google", "other", googleSpecial),
  doc(GOOGLE_SPECIAL, "Google-HotelAdsVerifier", "Google", "other", googleSpecial),
  doc(GOOGLE_SPECIAL, "Google-Ads-Conversions", "Google", "other", googleSpecial),
  doc(GOOGLE_SPECIAL, "Google-Ads-Creatives-Assistant", "Google", "other", googleSpecial),
  doc(GOOGLE_SPECIAL, "Googlebot-Mobile", "Google", "search_engine", googleCommon),
  doc(GOOGLE_SPECIAL, "Google Web Light", "Google", "other", googleSpecial, ["googleweblight"]),
  doc(GOOGLE_SPECIAL, "GoogleProducer", "Google", "other", googleUser),
  doc(GOOGLE_USER, "DuplexWeb-Google", "Google", "ai_assistant", googleUser),
  doc(GOOGLE_USER, "Google-Publisher-Center", "Google", "monitoring", googleUser),
  doc(GOOGLE_USER, "Google-Business-Link-Verification", "Google", "monitoring", googleUser),
  doc(GOOGLE_USER, "Google-PageRenderer", "Google", "social_preview", googleUser),
  doc(GOOGLE_USER, "Google-Structured-Data-Testing-Tool", "Google", "monitoring", googleUser),
  doc(GOOGLE_USER, "GoogleImageProxy", "Google", "social_preview", googleUser),
  doc(GOOGLE_USER, "Chrome-Lighthouse", "Google", "monitoring", googleUser),
  doc(GOOGLE_USER, "Google Page Speed Insights", "Google", "monitoring", googleUser),
  doc(GOOGLE_USER, "Google Web Preview", "Google", "social_preview", googleUser),
  doc(BING, "AdIdxBot", "Microsoft", "other", { lists: ["bingbot"], rdns: ["search.msn.com"] }),
  doc(BING, "BingPreview", "Microsoft", "social_preview", { lists: ["bingbot"], rdns: ["search.msn.com"] }),
  doc(BING, "MicrosoftPreview", "Microsoft", "social_preview", {
    lists: ["bingbot"],
    rdns: ["search.msn.com"],
  }),
  doc(BING, "msnbot", "Microsoft", "search_engine", { rdns: ["search.msn.com"] }, ["msnbot-media"]),
  doc(YANDEX, "YandexMetrika", "Yandex", "monitoring", yandexVerify),
  doc(YANDEX, "YandexDirect", "Yandex", "other", yandexVerify, ["YaDirectFetcher", "YandexDirectDyn"]),
  doc(YANDEX, "YandexScreenshotBot", "Yandex", "social_preview", yandexVerify),
  doc(YANDEX, "YandexFavicons", "Yandex", "social_preview", yandexVerify),
  doc(YANDEX, "YandexBlogs", "Yandex", "feed_fetcher", yandexVerify),
  doc(YANDEX, "YandexRenderResourcesBot", "Yandex", "search_engine", yandexVerify),
  // the rest of the robots Yandex's page lists, by what they do
  doc(YANDEX, "YandexMarket", "Yandex", "search_engine", yandexVerify, [
    "YandexMedia",
    "YandexNews",
    "YandexSitelinks",
    "YandexTurbo",
    "YandexVertis",
    "YandexOntoDB",
    "YandexSearchShop",
    "YandexComBot",
  ]),
  doc(YANDEX, "YandexWebmaster", "Yandex", "monitoring", yandexVerify, [
    "YandexPagechecker",
    "YandexForDomain",
  ]),
  doc(YANDEX, "YandexMobileScreenShotBot", "Yandex", "social_preview", yandexVerify, ["YandexImageResizer"]),
  doc(YANDEX, "YandexCalendar", "Yandex", "feed_fetcher", yandexVerify),
  doc(YANDEX, "YandexUserproxy", "Yandex", "other", yandexVerify),
  doc(BAIDU, "Baiduspider-video", "Baidu", "search_engine", baiduVerify, [
    "Baiduspider-news",
    "Baiduspider-favo",
  ]),
  doc(BAIDU, "Baiduspider-ads", "Baidu", "other", baiduVerify, ["Baiduspider-cpro"]),
  doc(YANDEX, "YandexAdNet", "Yandex", "other", yandexVerify, [
    "YandexPartner",
    "YandexTracker",
    "YandexVerticals",
  ]),
  doc(
    "https://help.baidu.com/question?prod_id=99&class=476&id=2996",
    "Baiduspider-render",
    "Baidu",
    "search_engine",
    {
      rdns: ["baidu.com", "baidu.jp"],
      forward: false,
    },
  ),
  doc("https://cs.daum.net/faq/15/4118.html", "Daumoa", "Kakao", "search_engine", {}, ["Daum"]),
  doc(
    "https://developers.facebook.com/docs/sharing/webmasters/web-crawlers",
    "facebookcatalog",
    "Meta",
    "other",
    meta,
  ),
  doc("https://bytedance.com/en/bot", "TikTokSpider", "ByteDance", "ai_training"),
];

/**
 * Names in the crawler lists that are too common to find inside an agent safely (they name people's software
 * or are plain words); the generic rules still catch the crawlers that carry them.
 */
export const LIST_NAMES_SKIPPED = new Set<string>([
  // apps and browsers people run, whose own agents carry the name (the lists hold their server-side fetchers)
  ...["overcast", "notion", "grammarly", "asana", "tumblr", "goodreads", "mastodon", "bluesky", "nextcloud"],
  ...["paypal", "odin", "upday", "feeder", "feedflow", "instapaper", "tweakers", "swisscows", "btwebclient"],
  ...["blackboard", "hatena", "metaiab facebook", "mail.ru"],
  // a browser engine's own name (Ladybird's LibWeb), listed by nginx-ultimate-bad-bot-blocker for another LibWeb
  "libweb",
  // plain words and other people's tokens: an Android build number, common nouns
  ...["ap3a.240617.008", "make", "buck", "butterfly", "golfe", "magellan", "sonic", "verity", "spectate"],
  ...["speedy", "fluffy", "grover", "synapse", "potions", "trove", "watchful", "vigil", "upflow", "yanga"],
  ...[
    "linko",
    "crusty",
    "adventurer",
    "fever",
    "hello world",
    "ning",
    "eright",
    "moreover",
    "uptime",
    "fetch",
  ],
]);

/**
 * Product tokens of software people use that ua-parser-js's browser rules do not name, by where the names come
 * from: the products themselves (their names as their makers spell them in their agents).
 */
export const CURATED_HUMAN_TOKENS: Record<string, string[]> = {
  // the parts every browser agent is made of (engines, platforms, the "Mobile/15E148" and "Version/17.0" tokens)
  "browser agent conventions (engines, platforms, build and locale parts)": [
    ...["mozilla", "applewebkit", "webkit", "khtml", "like", "gecko", "trident", "presto", "blink", "safari"],
    ...[
      "mobile",
      "version",
      "chrome",
      "chromium",
      "firefox",
      "edge",
      "mobile safari",
      "tablet",
      "touch",
      "pro",
    ],
    ...[
      "android",
      "iphone",
      "ipad",
      "ipod",
      "linux",
      "windows",
      "macintosh",
      "x11",
      "cros",
      "kaios",
      "tizen",
    ],
    ...[
      "webos",
      "web0s",
      "smarttv",
      "smart-tv",
      "hbbtv",
      "netcast",
      "crkey",
      "aftb",
      "aftt",
      "aftm",
      "aftmm",
    ],
    ...["playstation", "xbox", "nintendo", "wii", "vr", "quest", "pixel", "smartwatch", "webtv", "standard"],
    ...["wv", "webview", "webview2", "build", "u", "rv", "sa", "un", "pre", "mob", "ppc", "gzip", "language"],
  ],
  // in-app browsers' suffixes: WeChat and QQ ("NetType/WIFI Language/zh_CN"), Facebook, carrier and OEM builds
  "in-app browser and carrier suffixes": [
    ...["nettype", "micromessenger", "wechat", "miniprogramenv", "xweb", "mmwebid", "mmwebsdk", "qq", "abi"],
    ...[
      "fbcr",
      "fbav",
      "fban",
      "fbios",
      "fb_iab",
      "untrusted",
      "mms",
      "configuration",
      "profile",
      "vodafone",
    ],
    ...[
      "sprint",
      "xiaomi",
      "miuibrowser",
      "heytapbrowser",
      "opt",
      "opr",
      "opx",
      "opver",
      "yabrowser",
      "yowser",
    ],
    ...["sznprohlizec", "samsungbrowser", "ucbrowser", "mqqbrowser", "baiduboxapp", "gsa", "whale", "naver"],
    ...["kakaotalk", "line", "instagram", "snapchat", "twitter", "linkedinapp", "pinterest", "tiktok"],
    // a company's ICAP proxy marks the browser agents it passes on (browscap's test agents of Chrome and Iron:
    // "… Safari/537.36 ICAPoHTTPS"); the request is still the person's
    "icapohttps",
    // a satellite ISP's accelerating proxy (HughesNet) and a Windows Phone maker's id mark the agents of people's
    // phones and tablets (serbanghita/Mobile-Detect's test agents: "… Safari/537.36 Hughes-PFB/CID5391275.AID…",
    // "… Lumia 535) … Mobile Safari/537 BMID/E679DAAB6F"); fifteenth round
    "hughes-pfb",
    "bmid",
    // QQ Browser's mark of an agent it lets the person customise (browscap's test agents of MQQBrowser:
    // "… MQQBrowser/6.9.1 Mobile/14D27 Safari/8536.25 MttCustomUA/2")
    "mttcustomua",
    // an exam-proctoring browser extension that appends its name to the person's browser agent (the user-agents
    // package's agents of browsers that ran its script: "… Chrome/153.0.8010.48 Safari/537.36 Honorlock")
    "honorlock",
  ],
  // desktop, TV and media software that embeds a browser engine and appends its own name
  "desktop, TV and media software (the products' own names)": [
    ...[
      "nwjs",
      "nw",
      "desktop",
      "electron",
      "cef",
      "qtwebengine",
      "qtwebkit",
      "adobeair",
      "adobecep",
      "slack",
      "slack_ssb",
      "teams",
    ],
    ...["discord", "spotify", "steam", "valve", "obs", "roblox", "robloxapp", "qgis", "arcgis", "zoom"],
    ...["skype", "thunderbird", "postbox", "evolution", "kmail2", "outlook", "mailapp", "netnewswire"],
    ...["flipboard", "mirall", "nextcloud", "owncloud", "dropbox", "onedrive", "webappmanager", "yahoodtv"],
    ...["cobalt", "vewd", "espial", "maple", "viera", "bravia", "aquos", "vidaa", "titanos", "zeasn"],
    ...["mypal", "seamonkey", "palemoon", "waterfox", "librewolf", "iceweasel", "icecat", "k-meleon"],
    ...["epiphany", "midori", "falkon", "qutebrowser", "surf", "luakit", "vimprobable2", "otter"],
  ],
};

/**
 * Apps that send their product name alone ("Barca/2.8.2", "Doppler 2.9.5.4", "Spotify/1.0"): desktop, TV and
 * media software and podcast players, named as their makers spell them. An agent that starts with one of these
 * is that app unless it also shows a strong automation sign (a contact URL, a library, a bot word).
 */
export const CURATED_STANDALONE_APPS: Record<string, string[]> = {
  "media and podcast players (the products' own names)": [
    ...["spotify", "pandora", "deezer", "tidal", "soundcloud", "shazam", "tunein", "iheartradio", "audible"],
    ...["pocket casts", "castbox", "podcast addict", "podcastaddict", "podbean", "stitcher", "castro"],
    ...["downcast", "antennapod", "player fm", "beyondpod", "doggcatcher", "podkicker", "podcruncher"],
    ...[
      "doppler",
      "bpod",
      "jpodder",
      "bashpodder",
      "podracer",
      "goldenpod",
      "podcasts",
      "rssradio",
      "rss_radio",
    ],
    ...["vlc", "kodi", "plex", "plexamp", "emby", "jellyfin", "infuse", "winamp", "foobar2000", "musicbee"],
    ...["aimp", "itunes", "zune", "mediamonkey", "clementine", "amarok", "rhythmbox", "banshee", "audacious"],
    ...["quicktime", "realplayer", "nsplayer", "wmplayer", "mediago", "replay av", "kinoma", "kinoma5"],
    ...[
      "quicknews",
      "espndownloadmanager",
      "pockettunes",
      "vox",
      "sonos",
      "roku",
      "appletv",
      "alexamediaplayer",
    ],
  ],
  "desktop and mobile software (the products' own names)": [
    ...[
      "superhuman",
      "barca",
      "barcapro",
      "airmail",
      "spark",
      "thunderbird",
      "postbox",
      "mailbird",
      "em client",
    ],
    ...[
      "transmit",
      "cyberduck",
      "filezilla",
      "winscp",
      "tableau",
      "arcgis pro",
      "qgis",
      "josm",
      "anyconnect",
    ],
    ...["globalprotect", "pan globalprotect", "steam", "roblox", "luminary", "ancestryandroid", "evernote"],
    ...["dropbox", "onedrive", "box sync", "boxnotes", "nextcloud", "owncloud", "mirall", "zoom", "webex"],
    ...["teams", "skype", "slack", "discord", "signal", "telegram desktop", "whatsapp desktop", "obs"],
  ],
};
