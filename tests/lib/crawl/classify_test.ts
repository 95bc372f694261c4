import assert from "node:assert/strict";
import { catalogEntry, classifyUserAgent, isAiCategory } from "../../../lib/crawl/classify.ts";
import { CATALOG, ROBOTS_ONLY_TOKENS } from "../../../lib/crawl/catalog_data.ts";

const samples: Record<string, string[]> = JSON.parse(
  await Deno.readTextFile(new URL("./ua_samples.json", import.meta.url)),
);

const BROWSERS = [
  // in-app browsers carry app names close to crawler tokens (Telegram, LinkedIn, Pinterest, Instagram)
  "Mozilla/5.0 (Linux; Android 11; Redmi Note 8 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 Telegram-Android/10.5.0 (Xiaomi Redmi Note 8 Pro; Android 11; SDK 30; AVERAGE)",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.7656",
  "Mozilla/5.0 (Linux; Android 12; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 Pinterest/12.1",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 300.0.0.0 (iPhone14,2; iOS 17_1; en_US; en-US; scale=3.00; 1170x2532; 512345678)",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/300.0.598994205 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 YaBrowser/24.1.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
  "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.39 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
];

Deno.test("classify: plain browsers are not automated (null)", () => {
  for (const ua of BROWSERS) assert.equal(classifyUserAgent(ua), null, ua);
});

Deno.test("classify: named crawlers get their catalog token, vendor, category and traffic", () => {
  const cases: [string, string, string, string, string][] = [
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot",
      "GPTBot",
      "OpenAI",
      "ai_training",
      "ai_agent",
    ],
    [
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Googlebot",
      "Google",
      "search_engine",
      "bot",
    ],
    ["Googlebot-Image/1.0", "Googlebot", "Google", "search_engine", "bot"],
    [
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot",
      "ChatGPT-User",
      "OpenAI",
      "ai_assistant",
      "ai_agent",
    ],
    [
      "Mozilla/5.0 (compatible; Claude-SearchBot/1.0)",
      "Claude-SearchBot",
      "Anthropic",
      "ai_search",
      "ai_agent",
    ],
    [
      "Mozilla/5.0 (compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)",
      "PerplexityBot",
      "Perplexity",
      "ai_search",
      "ai_agent",
    ],
    [
      "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
      "AhrefsBot",
      "Ahrefs",
      "seo_tool",
      "bot",
    ],
    [
      "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
      "facebookexternalhit",
      "Meta",
      "social_preview",
      "bot",
    ],
    ["TelegramBot (like TwitterBot)", "TelegramBot", "Telegram", "social_preview", "bot"],
    [
      "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
      "UptimeRobot",
      "UptimeRobot",
      "monitoring",
      "bot",
    ],
    [
      "Mozilla/5.0 (compatible; archive.org_bot +http://archive.org/details/archive.org_bot)",
      "archive.org_bot",
      "Internet Archive",
      "archiver",
      "bot",
    ],
  ];
  for (const [ua, token, vendor, category, traffic] of cases) {
    assert.deepEqual(classifyUserAgent(ua), { token, vendor, category, traffic }, ua);
  }
});

Deno.test("classify: generic automation is an unknown-vendor agent of category other", () => {
  const generic = [
    "curl/8.4.0",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "axios/1.6.0",
    "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (compatible; MyCoolBot/1.0; +http://example.com/bot)",
    "Mozilla/5.0 (compatible; SomeCrawler/2.0)",
    "Mozilla/5.0 (compatible; examplespider)",
    "Mozilla/5.0 (compatible; ThingFetcher/1.0)",
    "Mozilla/5.0 (compatible; Acme/1.0; +https://acme.test/about)",
    "SomethingCustom/3.2",
  ];
  for (const ua of generic) {
    assert.deepEqual(classifyUserAgent(ua), {
      token: "unknown",
      vendor: null,
      category: "other",
      traffic: "bot",
    }, ua);
  }
});

Deno.test("classify: self-contradicting browser agents count as automation", () => {
  const fakes = [
    // legacy Edge/ token beside Chrome 79+
    "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edge/18.19041",
    // Safari Version/ newer than its iOS
    "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
    // hardware model in place of the platform
    "Mozilla/5.0 (iPhone14,2; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
  ];
  for (const ua of fakes) assert.equal(classifyUserAgent(ua)?.token, "unknown", ua);
  // the real legacy EdgeHTML agent is a browser
  const legacyEdge =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.18362";
  assert.equal(classifyUserAgent(legacyEdge), null);
});

Deno.test("classify: sample agents of the catalog classify as automated, nearly all as their own token", () => {
  let total = 0, own = 0;
  for (const [token, uas] of Object.entries(samples)) {
    for (const ua of uas) {
      const c = classifyUserAgent(ua);
      assert.notEqual(c, null, `${token}: ${ua}`);
      total++;
      if (c!.token === token) own++;
    }
  }
  assert.ok(total > 200, `samples: ${total}`);
  assert.ok(own / total > 0.95, `own token for ${own} of ${total}`);
});

Deno.test("classify: AI categories are ai_agent traffic, every other category is bot", () => {
  assert.ok(isAiCategory("ai_training") && isAiCategory("ai_search") && isAiCategory("ai_assistant"));
  for (
    const c of ["search_engine", "seo_tool", "social_preview", "monitoring", "archiver", "other"] as const
  ) {
    assert.equal(isAiCategory(c), false);
  }
});

Deno.test("catalog: every crawlers.csv crawler is present, robots-only tokens are not request agents", () => {
  for (
    const t of [
      "Googlebot",
      "bingbot",
      "GPTBot",
      "ClaudeBot",
      "CCBot",
      "Amazonbot",
      "meta-externalagent",
      "PanguBot",
    ]
  ) {
    assert.ok(catalogEntry(t), t);
  }
  assert.ok(ROBOTS_ONLY_TOKENS.includes("google-extended"));
  assert.equal(
    CATALOG.some((e) => e.match.includes("google-extended") || e.match.includes("applebot-extended")),
    false,
  );
  assert.equal(classifyUserAgent("Mozilla/5.0 (compatible; Google-Extended)")?.token, "unknown");
});
