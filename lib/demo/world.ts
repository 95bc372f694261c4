/** The generated site's world: pages, places, devices and sources (facts, not traffic). */
import type { Channel } from "../store/records.ts";
import { attribute } from "../enrich/attribution.ts";

const BLOG = [
  "ai-search-visibility",
  "crawler-budget",
  "core-web-vitals-guide",
  "pricing-pages-that-convert",
  "server-side-tracking",
  "cookieless-analytics",
  "funnel-basics",
  "retention-curves",
  "robots-txt-for-ai",
  "llms-txt-explained",
  "seo-vs-geo",
  "utm-naming",
  "rage-clicks",
  "scroll-depth",
  "product-led-growth",
  "changelog-2026",
  "case-study-acme",
  "case-study-globex",
  "migrating-from-ga",
  "privacy-by-design",
];
const DOCS = [
  "quickstart",
  "install",
  "web-sdk",
  "server-sdk",
  "events",
  "identify",
  "autocapture",
  "consent",
  "api/read",
  "api/ingest",
  "mcp",
  "crawlers",
  "environments",
  "keys",
  "faq",
];

/** Pages by popularity rank; "/" and "/pricing" first. */
export const PAGES: string[] = [
  "/",
  "/pricing",
  "/features",
  "/docs",
  "/blog",
  "/signup",
  "/features/analytics",
  "/features/crawlers",
  "/about",
  "/customers",
  "/contact",
  "/checkout",
  "/features/mcp",
  "/security",
  "/changelog",
  "/careers",
  "/legal/privacy",
  ...DOCS.map((d) => `/docs/${d}`),
  ...BLOG.flatMap((b, i) => [`/blog/${b}`, ...(i % 2 ? [] : [`/blog/${b}-part-2`])]),
  ...Array.from({ length: 60 }, (_, i) => `/blog/archive/${2019 + (i % 7)}/${i + 1}`),
];
const titleOf = (p: string) => (p === "/" ? "Home" : p.split("/").filter(Boolean).at(-1)!.replace(/-/g, " "));
const titles = new Map<string, string>(); // a page's title, made once (a big site asks it millions of times)
export const TITLES = (p: string): string => {
  let t = titles.get(p);
  if (t === undefined) titles.set(p, t = titleOf(p));
  return t;
};

export const COUNTRIES = [
  {
    code: "US",
    cities: ["New York", "San Francisco", "Chicago"],
    ip: "23.32",
    w: 30,
    tz: "America/New_York",
    lang: "en-US",
  },
  {
    code: "DE",
    cities: ["Berlin", "Munich", "Hamburg"],
    ip: "81.2",
    w: 12,
    tz: "Europe/Berlin",
    lang: "de-DE",
  },
  { code: "GB", cities: ["London", "Manchester"], ip: "2.125", w: 10, tz: "Europe/London", lang: "en-GB" },
  { code: "IN", cities: ["Bengaluru", "Mumbai"], ip: "49.36", w: 8, tz: "Asia/Kolkata", lang: "en-IN" },
  { code: "FR", cities: ["Paris", "Lyon"], ip: "90.84", w: 7, tz: "Europe/Paris", lang: "fr-FR" },
  { code: "BR", cities: ["São Paulo"], ip: "177.36", w: 5, tz: "America/Sao_Paulo", lang: "pt-BR" },
  { code: "CA", cities: ["Toronto", "Vancouver"], ip: "99.224", w: 5, tz: "America/Toronto", lang: "en-CA" },
  { code: "NL", cities: ["Amsterdam"], ip: "145.53", w: 4, tz: "Europe/Amsterdam", lang: "nl-NL" },
  { code: "JP", cities: ["Tokyo"], ip: "126.24", w: 4, tz: "Asia/Tokyo", lang: "ja-JP" },
  { code: "AU", cities: ["Sydney"], ip: "1.128", w: 3, tz: "Australia/Sydney", lang: "en-AU" },
  { code: "ES", cities: ["Madrid"], ip: "83.32", w: 3, tz: "Europe/Madrid", lang: "es-ES" },
  { code: "PL", cities: ["Warsaw"], ip: "83.6", w: 2, tz: "Europe/Warsaw", lang: "pl-PL" },
];

export const DEVICES = [
  {
    device: "desktop" as const,
    w: 55,
    os: ["Windows", "macOS", "Linux"],
    osW: [55, 35, 10],
    browsers: ["Chrome", "Safari", "Firefox", "Edge"],
    bW: [60, 18, 10, 12],
    width: 1440,
  },
  {
    device: "mobile" as const,
    w: 40,
    os: ["iOS", "Android"],
    osW: [55, 45],
    browsers: ["Mobile Safari", "Chrome Mobile", "Samsung Internet"],
    bW: [50, 42, 8],
    width: 390,
  },
  {
    device: "tablet" as const,
    w: 5,
    os: ["iOS", "Android"],
    osW: [70, 30],
    browsers: ["Mobile Safari", "Chrome"],
    bW: [70, 30],
    width: 820,
  },
];

export function userAgent(os: string, browser: string): string {
  const plat: Record<string, string> = {
    Windows: "Windows NT 10.0; Win64; x64",
    macOS: "Macintosh; Intel Mac OS X 10_15_7",
    Linux: "X11; Linux x86_64",
    iOS: "iPhone; CPU iPhone OS 18_1 like Mac OS X",
    Android: "Linux; Android 14; Pixel 8",
  };
  const p = plat[os];
  if (browser.includes("Safari")) {
    return `Mozilla/5.0 (${p}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 ${
      os === "iOS" ? "Mobile/15E148 " : ""
    }Safari/604.1`;
  }
  if (browser === "Firefox") return `Mozilla/5.0 (${p}; rv:132.0) Gecko/20100101 Firefox/132.0`;
  if (browser === "Edge") {
    return `Mozilla/5.0 (${p}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0`;
  }
  if (browser === "Samsung Internet") {
    return `Mozilla/5.0 (${p}) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36`;
  }
  return `Mozilla/5.0 (${p}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 ${
    os === "Android" ? "Mobile " : ""
  }Safari/537.36`;
}

interface SourceDecl {
  referrer: string | null; // full referrer URL
  utm?: { source: string; medium: string; campaign: string; term?: string; content?: string };
  /** where visits from it land: "home", "content" (blog/docs), "pricing" */
  lands: "home" | "content" | "pricing";
  w: number;
}

/** A source with the name and channel ingest gives its visits, so the demo's rows and live events' are one. */
export interface SourceDef extends SourceDecl {
  channel: Channel;
  source: string;
}

const DECLARED: SourceDecl[] = [
  { referrer: null, lands: "home", w: 33 },
  { referrer: "https://www.google.com/", lands: "content", w: 24 },
  { referrer: "https://www.bing.com/", lands: "content", w: 3 },
  { referrer: "https://duckduckgo.com/", lands: "content", w: 2 },
  { referrer: "https://chatgpt.com/", lands: "content", w: 6 },
  { referrer: "https://www.perplexity.ai/", lands: "content", w: 2 },
  { referrer: "https://claude.ai/", lands: "content", w: 1.5 },
  { referrer: "https://gemini.google.com/", lands: "content", w: 1 },
  { referrer: "https://copilot.microsoft.com/", lands: "content", w: 0.5 },
  { referrer: "https://www.linkedin.com/", lands: "content", w: 3 },
  { referrer: "https://www.reddit.com/", lands: "content", w: 2.5 },
  { referrer: "https://t.co/", lands: "content", w: 2 },
  { referrer: "https://news.ycombinator.com/", lands: "content", w: 3 },
  { referrer: "https://github.com/", lands: "home", w: 2.5 },
  { referrer: "https://dev.to/", lands: "content", w: 1.5 },
  {
    referrer: null,
    utm: { source: "newsletter", medium: "email", campaign: "november-digest" },
    lands: "content",
    w: 4,
  },
  {
    referrer: "https://www.google.com/",
    utm: { source: "google", medium: "cpc", campaign: "brand-search", term: "behavior analytics" },
    lands: "pricing",
    w: 3,
  },
  {
    referrer: "https://www.linkedin.com/",
    utm: { source: "linkedin", medium: "paid_social", campaign: "black-friday", content: "carousel-a" },
    lands: "pricing",
    w: 2,
  },
  {
    referrer: null,
    utm: { source: "lifecycle", medium: "email", campaign: "trial-ending" },
    lands: "pricing",
    w: 1,
  },
];

/** Named by the attribution ingest runs on a landing page (lib/enrich/attribution.ts), from its referrer and tags. */
export const SOURCES: SourceDef[] = DECLARED.map((d) => {
  const tags = d.utm ? "?" + new URLSearchParams(Object.entries(d.utm).map(([k, v]) => [`utm_${k}`, v])) : "";
  const a = attribute({
    referrer: d.referrer,
    url: `https://site.test/${tags}`,
    utm: {},
    lastTouch: null,
    pageHost: null,
  });
  return { ...d, source: a.source, channel: a.channel };
});

export const ELEMENTS: Record<string, { tag: string; text: string; selector: string }[]> = {
  default: [
    { tag: "a", text: "Pricing", selector: "nav a.pricing" },
    { tag: "a", text: "Docs", selector: "nav a.docs" },
    { tag: "button", text: "Get started", selector: "header button.cta" },
    { tag: "button", text: "Menu", selector: "header button.menu" },
  ],
  "/pricing": [
    { tag: "button", text: "Start free trial", selector: "#plan-pro button" },
    { tag: "button", text: "Contact sales", selector: "#plan-enterprise button" },
    { tag: "button", text: "Monthly / Yearly", selector: ".billing-toggle" },
  ],
  "/signup": [{ tag: "button", text: "Create account", selector: "form#signup button[type=submit]" }],
  "/checkout": [{ tag: "button", text: "Pay now", selector: "form#checkout button" }],
};

/** A form as the web SDK describes it: the form's fingerprint (submits) and its fields' (changes). */
export interface FormDef {
  form: { tag: "form"; text: string; id: string; selector: string };
  fields: { name: string; type: string; label: string }[];
  /**
   * share of page views (that do not convert) that change a field; of those filling every field, the share
   * that submit anyway (refused, or a form with no conversion event); a converting view always submits
   */
  start: number;
  submit: number;
}

export const FORMS: Record<string, FormDef> = {
  "/signup": {
    form: {
      tag: "form",
      text: "Create your account Email Password Create account",
      id: "signup",
      selector: "form#signup",
    },
    fields: [
      { name: "email", type: "email", label: "Email" },
      { name: "password", type: "password", label: "Password" },
    ],
    start: 0.5,
    submit: 0.2,
  },
  "/checkout": {
    form: {
      tag: "form",
      text: "Payment Card Name on card Country Pay now",
      id: "checkout",
      selector: "form#checkout",
    },
    fields: [
      { name: "card", type: "text", label: "Card" },
      { name: "name", type: "text", label: "Name on card" },
      { name: "country", type: "select-one", label: "Country" },
    ],
    start: 0.6,
    submit: 0.25,
  },
  "/contact": {
    form: {
      tag: "form",
      text: "Write to us Name Email Message Send",
      id: "contact",
      selector: "form#contact",
    },
    fields: [
      { name: "name", type: "text", label: "Name" },
      { name: "email", type: "email", label: "Email" },
      { name: "message", type: "textarea", label: "Message" },
    ],
    start: 0.3,
    submit: 0.5,
  },
};
