/// <reference lib="dom" />
/**
 * What a page is (path, cleaned URL, screen), where the visit came from (first and last touch) and how
 * far it got (deepest scroll, engaged time).
 */
import type { Store } from "./storage.ts";

export const UTM_PARAMS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];
const IDLE_MS = 30_000;

export interface PageInfo {
  path: string;
  url: string;
  screen: string;
}

/** Path without query, URL with allowlisted query parameters only; a `#/route` fragment is kept. */
export function pageInfo(href: string, allowParams: readonly string[]): PageInfo {
  const u = new URL(href);
  const kept = new URLSearchParams();
  u.searchParams.forEach((v, k) => {
    if (allowParams.includes(k)) kept.append(k, v);
  });
  const q = kept.toString();
  const route = /^#!?\//.test(u.hash) ? u.hash : "";
  return {
    path: u.pathname,
    url: u.origin + u.pathname + (q ? "?" + q : "") + route,
    screen: (u.pathname + route).slice(0, 2048),
  };
}

export interface Touch {
  source: string | null;
  medium: string | null;
  campaign: string | null;
  term: string | null;
  content: string | null;
  referrer_host: string | null;
  landing_path: string | null;
}

/** A new touch: UTM parameters, or a referrer from another site. Internal navigation is no touch. */
export function touchOf(href: string, referrer: string): Touch | null {
  const u = new URL(href);
  const p = (name: string) => u.searchParams.get(name) || null;
  let refHost: string | null = null;
  try {
    refHost = referrer ? new URL(referrer).hostname : null;
  } catch { /* not a URL */ }
  if (refHost === u.hostname) refHost = null;
  if (!refHost && !UTM_PARAMS.some((k) => p(k))) return null;
  return {
    source: p("utm_source"),
    medium: p("utm_medium"),
    campaign: p("utm_campaign"),
    term: p("utm_term"),
    content: p("utm_content"),
    referrer_host: refHost,
    landing_path: u.pathname,
  };
}

const FIRST = "bsdk_ft";
const LAST = "bsdk_lt";

/** Records a touch (first touch once, last touch every time) and returns both. */
export function rememberTouch(
  store: Store,
  touch: Touch | null,
): { first_touch: Touch | null; last_touch: Touch | null } {
  if (touch) {
    const json = JSON.stringify(touch);
    if (!store.get(FIRST)) store.set(FIRST, json);
    store.set(LAST, json);
  }
  const read = (k: string): Touch | null => {
    try {
      return JSON.parse(store.get(k) ?? "null");
    } catch {
      return null;
    }
  };
  return { first_touch: read(FIRST), last_touch: read(LAST) };
}

/** Deepest scroll (percent of the page seen) and visible, active time on the current page. */
export class PageProgress {
  private maxDepth = 0;
  private engagedMs = 0;
  private lastActive: number;
  private visible = true;

  constructor(private now: () => number) {
    this.lastActive = now();
  }

  /** Starts counting a new page. */
  restart(visible: boolean): void {
    this.maxDepth = 0;
    this.engagedMs = 0;
    this.lastActive = this.now();
    this.visible = visible;
  }

  /** Depth from scroll position, viewport height and page height; a page that fits is seen whole. */
  seen(scrollY: number, viewportH: number, pageH: number): void {
    const depth = pageH <= viewportH ? 100 : Math.round(((scrollY + viewportH) / pageH) * 100);
    this.maxDepth = Math.max(this.maxDepth, Math.min(100, Math.max(0, depth)));
  }

  /** Visitor activity: time since the last activity counts, up to 30 s of idleness. */
  active(): void {
    this.tick();
  }

  visibility(visible: boolean): void {
    this.tick();
    this.visible = visible;
  }

  private tick(): void {
    const now = this.now();
    if (this.visible) this.engagedMs += Math.min(now - this.lastActive, IDLE_MS);
    this.lastActive = now;
  }

  depthPercent(): number {
    return this.maxDepth;
  }

  engagementMs(): number {
    this.tick();
    return Math.round(this.engagedMs);
  }
}
