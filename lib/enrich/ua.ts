/**
 * Browser, OS and device type from a user agent, by ua-parser-js v2 with its bot extension.
 * Parsing costs a few hundred µs and sits on the ingest hot path, while a site sees few distinct
 * agents, so answers are kept in a small LRU. Telling bots from AI agents is the crawler catalog's
 * job; here a bot is only a device type.
 */
import { UAParser } from "ua-parser-js";
import { Bots } from "ua-parser-js/extensions";

export type DeviceType = "desktop" | "mobile" | "tablet" | "bot" | "other";

export interface Agent {
  browser: string | null;
  os: string | null;
  device_type: DeviceType;
}

/** Longer agents are cut before parsing and caching; real browsers stay far below this. */
export const MAX_AGENT_LENGTH = 512;
export const AGENT_CACHE_SIZE = 4096;

const BOT_BROWSER_TYPES = new Set(["crawler", "fetcher", "cli", "library"]);
const DESKTOP_OS =
  /^(windows|macos|mac os|linux|ubuntu|debian|fedora|mint|arch|gentoo|suse|red hat|centos|chrome os|chromium os|freebsd|openbsd|netbsd|solaris)/i;
// Automation the bot extension does not name: headless browsers, generic bot words, HTTP libraries.
const AUTOMATION =
  /headless|phantomjs|(?:^|[^a-z])bot(?:[^a-z]|$)|[a-z]bot\/|crawl|spider|slurp|scrapy|python-|curl\/|wget\/|go-http-client|java\/|axios\/|node-fetch|undici/i;

const NONE: Agent = Object.freeze({ browser: null, os: null, device_type: "other" });

export function classifyAgent(ua: string): Agent {
  const r = UAParser(ua, Bots);
  const browser = r.browser.name ?? null;
  const os = r.os.name ?? null;
  const type = r.device.type;
  let device_type: DeviceType;
  if (BOT_BROWSER_TYPES.has(r.browser.type ?? "") || AUTOMATION.test(ua)) device_type = "bot";
  else if (type === "mobile" || type === "tablet") device_type = type;
  else if (type) device_type = "other"; // smart TV, console, wearable, XR, embedded
  else if (os && DESKTOP_OS.test(os)) device_type = "desktop";
  else device_type = "other";
  return { browser, os, device_type };
}

/** A Map in insertion order is an LRU: a hit moves its key to the end, the oldest key goes first. */
class Lru<V> {
  #map = new Map<string, V>();
  constructor(readonly capacity: number) {}
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V) {
    this.#map.set(key, v);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value!);
  }
  get size() {
    return this.#map.size;
  }
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

export { Lru };
