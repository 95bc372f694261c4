/**
 * A generated site for tool tests: visitors with sessions, pageviews, page leaves, clicks, custom events with
 * properties, automated agents, and crawler hits, stored as the ingest pipeline stores them. Deterministic
 * (seeded). Tests compute their expectations from the returned records on their own.
 */
import { keys } from "../../lib/store/keys.ts";
import type { Channel, StoredEvent, StoredHit, Verification } from "../../lib/store/records.ts";
import { ev } from "../lib/query/fixtures.ts";

export const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;

export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}

export const PAGES = ["/", "/pricing", "/docs", "/blog/launch", "/blog/tips", "/contact"];
const ORIGINS: { source: string; channel: Channel; referrer: string | null; campaign: string | null }[] = [
  { source: "(direct)", channel: "Direct", referrer: null, campaign: null },
  { source: "Google", channel: "Organic Search", referrer: "www.google.com", campaign: null },
  { source: "ChatGPT", channel: "AI Assistant", referrer: "chatgpt.com", campaign: null },
  { source: "Perplexity", channel: "AI Assistant", referrer: "www.perplexity.ai", campaign: null },
  { source: "news.example", channel: "Referral", referrer: "news.example", campaign: null },
  { source: "newsletter", channel: "Email", referrer: null, campaign: "nov_launch" },
];
const COUNTRIES = ["DE", "GB", "US", "FR", null];
const DEVICES = ["desktop", "mobile", "tablet"] as const;
const BROWSERS = ["Chrome", "Firefox", "Safari"];

export interface Site {
  events: StoredEvent[];
  hits: StoredHit[];
  /** Every raw visitor and session id: none may appear in an answer. */
  identifiers: string[];
}

export interface SiteOptions {
  org: string;
  touchpoint: string;
  visitors?: number;
  days?: number;
  seed?: number;
}

let idn = 0;
const uuid = (prefix: string) => `${prefix}${String(++idn).padStart(12, "0")}`;

export function generateSite(o: SiteOptions): Site {
  const r = rng(o.seed ?? 7);
  const days = o.days ?? 35;
  const events: StoredEvent[] = [];
  const identifiers: string[] = [];
  // The engine tests' record builder, with this site's tenant, no geo, and visitor/session set by the caller.
  const base = (t: number, over: Partial<StoredEvent>): StoredEvent =>
    ev({
      org: o.org,
      touchpoint: o.touchpoint,
      received_at: t,
      anonymous_id: "anon-0",
      session_id: "sess-0",
      geo: { country: null, city: null, asn: null, as_org: null },
      ...over,
    });
  const visitors = o.visitors ?? 60;
  for (let v = 0; v < visitors; v++) {
    const anon = `anon-${o.seed ?? 7}-${v}`;
    identifiers.push(anon);
    const device = r.pick(DEVICES);
    const browser = r.pick(BROWSERS);
    const country = r.pick(COUNTRIES);
    const plan = v % 10 < 6 ? "pro" : "free";
    for (let s = 0, n = r.int(1, 3); s < n; s++) {
      const sess = `sess-${o.seed ?? 7}-${v}-${s}`;
      identifiers.push(sess);
      const origin = r.pick(ORIGINS);
      let t = NOW - r.int(60_000, days * DAY);
      let seq = 0;
      const common = {
        anonymous_id: anon,
        session_id: sess,
        device_type: device,
        browser,
        geo: { country, city: null, asn: null, as_org: null },
        source: origin.source,
        channel: origin.channel,
        referrer_host: origin.referrer,
        utm: origin.campaign
          ? { source: origin.source, medium: "email", campaign: origin.campaign, term: null, content: null }
          : null,
      };
      for (let p = 0, views = r.int(1, 4); p < views; p++) {
        const page = r.pick(PAGES);
        const at = (over: Partial<StoredEvent>) => {
          events.push(base(t, { ...common, sequence_no: seq++, path: page, screen: page, ...over }));
          t += r.int(2_000, 40_000);
        };
        at({ event_type: "$pageview", properties: { path: page, url: `https://acme.test${page}` } });
        if (r.next() < 0.3) {
          const rage = r.next() < 0.3;
          at({
            event_type: "$autocapture",
            element: "Buy now",
            properties: { action: "click", rage_click: rage },
          });
        }
        if (page === "/pricing" && r.next() < 0.5) {
          const note = v % 2 === 0 ? "write to support@acme.test" : `contact ${v}@mail.example.com`;
          at({ event_type: "sign_up", properties: { plan, note } });
        }
        at({
          event_type: "$pageleave",
          properties: { depth_percent: r.int(10, 100), engagement_time_ms: r.int(1_000, 90_000) },
        });
      }
    }
  }
  // Three visitors signed up for the rare "team" plan in the last 3 days: a small group.
  for (let v = 0; v < 3; v++) {
    const t = NOW - (v + 1) * DAY;
    events.push(base(t, {
      anonymous_id: `anon-${o.seed ?? 7}-${v}`,
      session_id: `sess-team-${v}`,
      event_type: "sign_up",
      path: "/pricing",
      screen: "/pricing",
      properties: { plan: "team", note: "write to support@acme.test" },
    }));
    identifiers.push(`sess-team-${v}`);
  }
  // Automated agents that ran the web SDK.
  for (let i = 0; i < 12; i++) {
    const ai = i % 3 === 0;
    events.push(base(NOW - r.int(60_000, days * DAY), {
      anonymous_id: `bot-${i}`,
      session_id: `botsess-${i}`,
      path: r.pick(PAGES),
      traffic: ai ? "ai_agent" : "bot",
      crawler: ai ? "ChatGPT-User" : "AhrefsBot",
      device_type: "bot",
    }));
  }
  return { events, hits: generateHits(o, r, days), identifiers };
}

const CRAWLERS: {
  crawler: string;
  vendor: string;
  category: StoredHit["category"];
  verification: Verification;
}[] = [
  { crawler: "GPTBot", vendor: "OpenAI", category: "ai_training", verification: "verified" },
  { crawler: "ClaudeBot", vendor: "Anthropic", category: "ai_training", verification: "verified" },
  { crawler: "Googlebot", vendor: "Google", category: "search_engine", verification: "verified" },
  { crawler: "PerplexityBot", vendor: "Perplexity", category: "ai_search", verification: "unverifiable" },
  { crawler: "GPTBot", vendor: "OpenAI", category: "ai_training", verification: "spoofed" },
];

function generateHits(o: SiteOptions, r: ReturnType<typeof rng>, days: number): StoredHit[] {
  const hits: StoredHit[] = [];
  for (let i = 0; i < 150; i++) {
    const c = r.pick(CRAWLERS);
    const t = NOW - r.int(60_000, days * DAY);
    const robots = r.next() < 0.1;
    // /contact is never crawled; /docs only long ago (stale)
    const path = robots
      ? "/robots.txt"
      : r.pick(["/", "/pricing", "/blog/launch", "/blog/tips", "/old-page"]);
    const status = r.pick([200, 200, 200, 304, 403, 429, 503, null]);
    const crawled = !robots && (status === null || status === 304 || (status >= 200 && status < 300));
    hits.push({
      v: 1,
      id: uuid("10000000-0000-4000-8000-"),
      org: o.org,
      touchpoint: o.touchpoint,
      env: "production",
      received_at: t,
      timestamp: t,
      host: "acme.test",
      path,
      method: "GET",
      status,
      user_agent: `${c.crawler}/1.0`,
      referer_host: null,
      crawler: c.crawler,
      vendor: c.vendor,
      category: c.category,
      site_file: robots ? "robots.txt" : null,
      crawled,
      geo: { country: "US", city: null, asn: null, as_org: null },
      verification: c.verification,
      via: "server",
    });
  }
  // One read of /docs 30 days ago: stale by the 14-day rule.
  const t = NOW - 30 * DAY;
  hits.push({
    ...hits[0],
    id: uuid("10000000-0000-4000-8000-"),
    received_at: t,
    timestamp: t,
    path: "/docs",
    status: 200,
    crawled: true,
    site_file: null,
    crawler: "Googlebot",
    vendor: "Google",
    category: "search_engine",
    verification: "verified",
    user_agent: "Googlebot/2.1",
  });
  return hits;
}

export async function storeSite(kv: Deno.Kv, site: Site): Promise<void> {
  for (let i = 0; i < site.events.length; i += 100) {
    const tx = kv.atomic();
    for (const e of site.events.slice(i, i + 100)) {
      tx.set(keys.rawEvent(e.org, e.env, e.received_at, e.id), e);
    }
    await tx.commit();
  }
  for (let i = 0; i < site.hits.length; i += 100) {
    const tx = kv.atomic();
    for (const h of site.hits.slice(i, i + 100)) tx.set(keys.rawHit(h.org, h.env, h.received_at, h.id), h);
    await tx.commit();
  }
}
