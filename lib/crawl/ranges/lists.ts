/**
 * The published IP lists we know: vendor crawler lists (an address inside proves the crawler) and CDN edge
 * lists (an address inside is a CDN edge, so the real client is hidden). The snapshot shipped with the code
 * (snapshot.json, built by scripts/build_catalog.ts) is refreshed daily from `urls`; a list without urls is
 * snapshot-only (Meta publishes routes of its ASN, not a file).
 */
export interface RangeListDef {
  id: string;
  kind: "vendor" | "cdn";
  urls: string[];
  /** AWS's ip-ranges.json lists every service: keep only prefixes of this one. */
  service?: string;
}

const G = "https://developers.google.com/static/crawling/ipranges/";

export const RANGE_LISTS: RangeListDef[] = [
  { id: "google-common", kind: "vendor", urls: [G + "common-crawlers.json"] },
  { id: "google-special", kind: "vendor", urls: [G + "special-crawlers.json"] },
  {
    id: "google-user-triggered",
    kind: "vendor",
    urls: [
      G + "user-triggered-fetchers.json",
      G + "user-triggered-fetchers-google.json",
      G + "user-triggered-agents.json",
    ],
  },
  { id: "bingbot", kind: "vendor", urls: ["https://www.bing.com/toolbox/bingbot.json"] },
  { id: "applebot", kind: "vendor", urls: ["https://search.developer.apple.com/applebot.json"] },
  { id: "duckduckbot", kind: "vendor", urls: ["https://duckduckgo.com/duckduckbot.json"] },
  { id: "duckassistbot", kind: "vendor", urls: ["https://duckduckgo.com/duckassistbot.json"] },
  { id: "gptbot", kind: "vendor", urls: ["https://openai.com/gptbot.json"] },
  { id: "oai-searchbot", kind: "vendor", urls: ["https://openai.com/searchbot.json"] },
  { id: "chatgpt-user", kind: "vendor", urls: ["https://openai.com/chatgpt-user.json"] },
  { id: "oai-adsbot", kind: "vendor", urls: ["https://openai.com/adsbot.json"] },
  { id: "anthropic", kind: "vendor", urls: ["https://claude.com/crawling/bots.json"] },
  { id: "perplexitybot", kind: "vendor", urls: ["https://www.perplexity.ai/perplexitybot.json"] },
  { id: "perplexity-user", kind: "vendor", urls: ["https://www.perplexity.ai/perplexity-user.json"] },
  { id: "ccbot", kind: "vendor", urls: ["https://index.commoncrawl.org/ccbot.json"] },
  { id: "mistralai-user", kind: "vendor", urls: ["https://mistral.ai/mistralai-user-ips.json"] },
  { id: "mistralai-index", kind: "vendor", urls: ["https://mistral.ai/mistralai-index-ips.json"] },
  { id: "ahrefs", kind: "vendor", urls: ["https://api.ahrefs.com/v3/public/crawler-ips"] },
  { id: "yandex", kind: "vendor", urls: ["https://yandex.com/ips"] },
  { id: "meta", kind: "vendor", urls: [] },
  { id: "twitterbot", kind: "vendor", urls: [] },
  { id: "telegrambot", kind: "vendor", urls: ["https://core.telegram.org/resources/cidr.txt"] },
  { id: "kagi", kind: "vendor", urls: [] },
  {
    id: "pingdom",
    kind: "vendor",
    urls: ["https://my.pingdom.com/probes/ipv4", "https://my.pingdom.com/probes/ipv6"],
  },
  { id: "uptimerobot", kind: "vendor", urls: ["https://uptimerobot.com/inc/files/ips/IPv4andIPv6.txt"] },
  { id: "betterstack", kind: "vendor", urls: ["https://uptime.betterstack.com/ips.txt"] },
  { id: "webpagetest", kind: "vendor", urls: ["https://www.webpagetest.org/addresses.php?f=json"] },
  {
    id: "cdn-cloudflare",
    kind: "cdn",
    urls: ["https://www.cloudflare.com/ips-v4", "https://www.cloudflare.com/ips-v6"],
  },
  {
    id: "cdn-cloudfront",
    kind: "cdn",
    urls: ["https://ip-ranges.amazonaws.com/ip-ranges.json"],
    service: "CLOUDFRONT",
  },
  { id: "cdn-fastly", kind: "cdn", urls: ["https://api.fastly.com/public-ip-list"] },
  {
    id: "cdn-bunny",
    kind: "cdn",
    urls: [
      "https://api.bunny.net/system/edgeserverlist/plain",
      "https://api.bunny.net/system/edgeserverlist/ipv6",
    ],
  },
  { id: "cdn-cdn77", kind: "cdn", urls: ["https://prefixlists.tools.cdn77.com/public_lmax_prefixes.json"] },
];

export const rangeListDef = (id: string) => RANGE_LISTS.find((l) => l.id === id) ?? null;
