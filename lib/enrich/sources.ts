/**
 * Known traffic sources: which hosts (and utm_source values) are search engines, social networks,
 * AI answer engines and webmail, and the short name each one is counted under. Facts only; the
 * rules that turn them into channels live in attribution.ts.
 */
export type SourceKind = "search" | "social" | "ai" | "email";

export interface KnownSource {
  name: string;
  kind: SourceKind;
}

const S = (name: string, kind: SourceKind): KnownSource => ({ name, kind });

/** By host or parent domain, without `www.`; the most specific entry wins. */
const HOSTS: Record<string, KnownSource> = {
  // AI answer engines
  "chatgpt.com": S("chatgpt", "ai"),
  "chat.openai.com": S("chatgpt", "ai"),
  "perplexity.ai": S("perplexity", "ai"),
  "claude.ai": S("claude", "ai"),
  "gemini.google.com": S("gemini", "ai"),
  "bard.google.com": S("gemini", "ai"),
  "aistudio.google.com": S("gemini", "ai"),
  "notebooklm.google.com": S("notebooklm", "ai"),
  "copilot.microsoft.com": S("copilot", "ai"),
  "copilot.cloud.microsoft": S("copilot", "ai"),
  "m365.cloud.microsoft": S("copilot", "ai"),
  "chat.deepseek.com": S("deepseek", "ai"),
  "deepseek.com": S("deepseek", "ai"),
  "chat.mistral.ai": S("mistral", "ai"),
  "you.com": S("you.com", "ai"),
  "phind.com": S("phind", "ai"),
  "meta.ai": S("meta ai", "ai"),
  "poe.com": S("poe", "ai"),
  "grok.com": S("grok", "ai"),
  "chat.qwen.ai": S("qwen", "ai"),
  "kimi.com": S("kimi", "ai"),
  "kimi.moonshot.cn": S("kimi", "ai"),
  "duck.ai": S("duckduckgo ai", "ai"),
  "chat.z.ai": S("z.ai", "ai"),
  "andisearch.com": S("andi", "ai"),
  // webmail, before the search brands they share a domain with
  "mail.google.com": S("gmail", "email"),
  "com.google.android.gm": S("gmail", "email"), // android-app:// referrer
  "outlook.live.com": S("outlook", "email"),
  "outlook.office.com": S("outlook", "email"),
  "outlook.office365.com": S("outlook", "email"),
  "mail.yahoo.com": S("yahoo mail", "email"),
  "mail.proton.me": S("proton mail", "email"),
  "mail.aol.com": S("aol mail", "email"),
  "mail.yandex.ru": S("yandex mail", "email"),
  // search engines (google.*, bing.*, yahoo.*, yandex.* are matched by brand below)
  "com.google.android.googlequicksearchbox": S("google", "search"),
  "duckduckgo.com": S("duckduckgo", "search"),
  "ya.ru": S("yandex", "search"),
  "baidu.com": S("baidu", "search"),
  "ecosia.org": S("ecosia", "search"),
  "search.brave.com": S("brave", "search"),
  "qwant.com": S("qwant", "search"),
  "startpage.com": S("startpage", "search"),
  "search.naver.com": S("naver", "search"),
  "naver.com": S("naver", "search"),
  "seznam.cz": S("seznam", "search"),
  "search.seznam.cz": S("seznam", "search"),
  "sogou.com": S("sogou", "search"),
  "so.com": S("360 search", "search"),
  "kagi.com": S("kagi", "search"),
  "ask.com": S("ask", "search"),
  "search.aol.com": S("aol", "search"),
  "mojeek.com": S("mojeek", "search"),
  "yep.com": S("yep", "search"),
  "petalsearch.com": S("petal search", "search"),
  "daum.net": S("daum", "search"),
  "coccoc.com": S("coc coc", "search"),
  "dogpile.com": S("dogpile", "search"),
  "presearch.com": S("presearch", "search"),
  "swisscows.com": S("swisscows", "search"),
  "metager.org": S("metager", "search"),
  "metager.de": S("metager", "search"),
  // social networks
  "facebook.com": S("facebook", "social"),
  "fb.com": S("facebook", "social"),
  "fb.me": S("facebook", "social"),
  "com.facebook.katana": S("facebook", "social"),
  "messenger.com": S("facebook", "social"),
  "instagram.com": S("instagram", "social"),
  "t.co": S("x", "social"),
  "x.com": S("x", "social"),
  "twitter.com": S("x", "social"),
  "com.twitter.android": S("x", "social"),
  "linkedin.com": S("linkedin", "social"),
  "lnkd.in": S("linkedin", "social"),
  "com.linkedin.android": S("linkedin", "social"),
  "reddit.com": S("reddit", "social"),
  "redd.it": S("reddit", "social"),
  "com.reddit.frontpage": S("reddit", "social"),
  "youtube.com": S("youtube", "social"),
  "youtu.be": S("youtube", "social"),
  "tiktok.com": S("tiktok", "social"),
  "pin.it": S("pinterest", "social"),
  "snapchat.com": S("snapchat", "social"),
  "threads.net": S("threads", "social"),
  "threads.com": S("threads", "social"),
  "bsky.app": S("bluesky", "social"),
  "mastodon.social": S("mastodon", "social"),
  "tumblr.com": S("tumblr", "social"),
  "vk.com": S("vk", "social"),
  "weibo.com": S("weibo", "social"),
  "quora.com": S("quora", "social"),
  "news.ycombinator.com": S("hacker news", "social"),
  "discord.com": S("discord", "social"),
  "t.me": S("telegram", "social"),
  "web.telegram.org": S("telegram", "social"),
  "org.telegram.messenger": S("telegram", "social"),
  "whatsapp.com": S("whatsapp", "social"),
  "web.whatsapp.com": S("whatsapp", "social"),
  "wa.me": S("whatsapp", "social"),
  "xing.com": S("xing", "social"),
};

/** Brands living under many country domains (google.co.uk, yandex.ru, pinterest.de, …). */
const BRANDS: Record<string, KnownSource> = {
  google: S("google", "search"),
  bing: S("bing", "search"),
  yahoo: S("yahoo", "search"),
  yandex: S("yandex", "search"),
  baidu: S("baidu", "search"),
  pinterest: S("pinterest", "social"),
  facebook: S("facebook", "social"),
};
// Only these front labels count as the brand itself: docs.google.com is a referral, not a search.
const BRAND_PREFIXES = new Set([
  "",
  "www",
  "m",
  "search",
  "images",
  "news",
  "maps",
  "scholar",
  "cn",
  "uk",
  "de",
]);

/** Paths that make a host an AI engine (Kagi's assistant, Bing's chat, Hugging Face chat). */
const AI_PATHS: [host: string, pathPrefix: string, source: KnownSource][] = [
  ["kagi.com", "/assistant", S("kagi assistant", "ai")],
  ["bing.com", "/chat", S("copilot", "ai")],
  ["huggingface.co", "/chat", S("huggingchat", "ai")],
  ["x.com", "/i/grok", S("grok", "ai")],
];

export function stripWww(host: string): string {
  return host.startsWith("www.") ? host.slice(4) : host;
}

/**
 * A table's own entry, never Object's: the tables are object literals, and an input such as "constructor"
 * (utm_source=constructor, constructor.io) or "toString" would otherwise find Object.prototype's member.
 */
const own = (table: Record<string, KnownSource>, key: string): KnownSource | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/** A host (lower case, no port) and optionally the path of the referring page. */
export function sourceOfHost(rawHost: string, path = "/"): KnownSource | null {
  const host = stripWww(rawHost.toLowerCase().replace(/\.$/, ""));
  for (const [h, prefix, src] of AI_PATHS) {
    if ((host === h || host.endsWith(`.${h}`)) && path.startsWith(prefix)) return src;
  }
  const labels = host.split(".");
  for (let i = 0; i < labels.length - 1; i++) {
    const hit = own(HOSTS, labels.slice(i).join("."));
    if (hit) return hit;
  }
  // brand.tld or brand.co.tld, with at most one accepted front label
  for (let i = 0; i < labels.length && i <= 1; i++) {
    const brand = own(BRANDS, labels[i]);
    const rest = labels.slice(i + 1);
    const front = labels.slice(0, i).join(".");
    if (
      brand && BRAND_PREFIXES.has(front) && rest.length >= 1 && rest.length <= 2 &&
      rest.every((l) => /^[a-z]{2,3}$/.test(l))
    ) return brand;
  }
  return null;
}

/** utm_source values people write instead of a host. */
const NAMES: Record<string, KnownSource> = {
  ...Object.fromEntries(
    [...Object.values(HOSTS), ...Object.values(BRANDS)].map((s) => [s.name, s]),
  ),
  kagi: S("kagi", "search"),
  openai: S("chatgpt", "ai"),
  bard: S("gemini", "ai"),
  perplexity: S("perplexity", "ai"),
  you: S("you.com", "ai"),
  fb: S("facebook", "social"),
  ig: S("instagram", "social"),
  twitter: S("x", "social"),
  tw: S("x", "social"),
  li: S("linkedin", "social"),
  yt: S("youtube", "social"),
  hn: S("hacker news", "social"),
  hackernews: S("hacker news", "social"),
  bluesky: S("bluesky", "social"),
  bsky: S("bluesky", "social"),
};

/** A utm_source value: a host-like value goes by host, anything else by name. */
export function sourceOfName(raw: string): KnownSource | null {
  const v = raw.trim().toLowerCase();
  if (!v) return null;
  if (v.includes(".") && !v.includes(" ")) {
    const host = v.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").split(/[/?#:]/)[0];
    const byHost = sourceOfHost(host);
    if (byHost) return byHost;
  }
  return own(NAMES, v) ?? null;
}
