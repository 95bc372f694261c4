/**
 * Browser, OS and device type from a user agent, by ua-parser-js 1.x (MIT; 2.x is AGPL-3.0).
 * Parsing costs tens of µs and sits on the ingest hot path, while a site sees few distinct
 * agents, so answers are kept in a small LRU. Telling people from automation is lib/crawl/classify.ts's
 * job; here a bot is only a device type.
 */
import UAParserModule from "ua-parser-js";
import { Lru } from "../lru.ts";

/** The part of ua-parser-js 1.x's result read here (the package ships no types). */
interface ParsedAgent {
  browser: { name?: string };
  os: { name?: string };
  device: { type?: string };
}
const UAParser = UAParserModule as unknown as (ua: string) => ParsedAgent;

export type DeviceType = "desktop" | "mobile" | "tablet" | "bot" | "other";

export interface Agent {
  browser: string | null;
  os: string | null;
  device_type: DeviceType;
}

/** Longer agents are cut before parsing and caching; real browsers stay far below this. */
export const MAX_AGENT_LENGTH = 512;
export const AGENT_CACHE_SIZE = 4096;

const DESKTOP_OS =
  /^(windows|macos|mac os|linux|ubuntu|debian|fedora|mint|arch|gentoo|suse|red hat|centos|chrome os|chromium os|freebsd|openbsd|netbsd|solaris)/i;
// Automation by its plain signs: headless browsers, generic bot words, HTTP libraries.
const AUTOMATION =
  /headless|phantomjs|(?:^|[^a-z])bot(?:[^a-z]|$)|[a-z]bot\/|crawl|spider|slurp|scrapy|python-|curl\/|wget\/|go-http-client|java\/|axios\/|node-fetch|undici/i;

// 1.x names a few things as 2.x did not; stored values keep the 2.x names so figures stay comparable over time.
const OS_NAMES: Record<string, string> = {
  "Mac OS": "macOS",
  "Windows Phone OS": "Windows Phone",
  "Chromium OS": "Chrome OS",
};
function browserName(name: string | undefined, ua: string): string | null {
  if (name === "Chrome" && /\bChrome\/[\w.]+ Mobile/i.test(ua)) return "Mobile Chrome";
  if (name === "Firefox" && /(?:mobile|tablet);.*\bFirefox\//i.test(ua)) return "Mobile Firefox";
  return name ?? null;
}

const NONE: Agent = Object.freeze({ browser: null, os: null, device_type: "other" });

export function classifyAgent(ua: string): Agent {
  const r = UAParser(ua);
  const browser = browserName(r.browser.name, ua);
  const os = r.os.name ? OS_NAMES[r.os.name] ?? r.os.name : null;
  const type = r.device.type;
  let device_type: DeviceType;
  if (AUTOMATION.test(ua)) device_type = "bot";
  else if (type === "mobile" || type === "tablet") device_type = type;
  else if (type) device_type = "other"; // smart TV, console, wearable, XR, embedded
  else if (os && DESKTOP_OS.test(os)) device_type = "desktop";
  else device_type = "other";
  // an automated agent's engine token ("WebKit" in GPTBot's agent) is no browser
  return { browser: device_type === "bot" ? null : browser, os, device_type };
}

const cache = new Lru<Agent>(AGENT_CACHE_SIZE);

/** The cached entry point the ingest pipeline calls. Returned objects are frozen and shared. */
export function parseAgent(ua: string | null | undefined): Agent {
  if (!ua || !ua.trim()) return NONE;
  const key = ua.length > MAX_AGENT_LENGTH ? ua.slice(0, MAX_AGENT_LENGTH) : ua;
  let agent = cache.get(key);
  if (!agent) {
    agent = Object.freeze(classifyAgent(key));
    cache.set(key, agent);
  }
  return agent;
}

/** For tests and stats: how many agents the cache holds. */
export function agentCacheSize(): number {
  return cache.size;
}
