/// <reference lib="dom" />
/**
 * The browser client: wires capture (page views, autocapture, scroll and engagement, web vitals) to the
 * queue, and holds identity, consent and opt-out. One client per page, created by init().
 */
import { onCLS, onINP, onLCP } from "web-vitals";
import { type Config, SDK_VERSION } from "./config.ts";
import { installAutocapture } from "./autocapture.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { Identity, inSample, uuid } from "./identity.ts";
import { cut, eventName, overLimits } from "./limits.ts";
import { maskDeep, maskText } from "./mask.ts";
import { type PageInfo, pageInfo, PageProgress, rememberTouch, touchOf, UTM_PARAMS } from "./page.ts";
import { EventQueue, type WireEvent } from "./queue.ts";
import { browserStore, memoryStore, type Store } from "./storage.ts";

const OPT_OUT = "bsdk_optout";
const CONSENT = "bsdk_consent";

export class Client {
  private prefs: Store = browserStore();
  private data: Store;
  private identity: Identity;
  private queue: EventQueue;
  private progress = new PageProgress(Date.now);
  private page: PageInfo;
  private params: string[];
  private seq = 0;
  private left = false;
  private touches: ReturnType<typeof rememberTouch> | null = null;
  private gpc = (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl === true;

  constructor(private cfg: Config) {
    const anonymousOnly = this.gpc && (cfg.gpc ?? "anonymous") === "anonymous";
    this.data = anonymousOnly ? memoryStore() : this.prefs;
    this.identity = new Identity(this.data, Date.now, uuid);
    this.params = [...UTM_PARAMS, ...(cfg.allowParams ?? [])];
    this.page = pageInfo(location.href, this.params);
    const endpoint = cfg.endpoint ??
      (cfg.host ?? location.origin).replace(/\/+$/, "") + "/v1/behavior/events";
    this.queue = new EventQueue({
      endpoint,
      apiKey: cfg.apiKey,
      loadId: uuid(),
      batchSize: cfg.batchSize,
      flushMs: cfg.flushIntervalMs,
      maxQueue: cfg.maxQueue,
    }, {
      fetch: (url, init) => fetch(url, init),
      // An application/json Blob, so the service parses the final batch like any other.
      beacon: navigator.sendBeacon
        ? (url, body) => navigator.sendBeacon(url, new Blob([body], { type: "application/json" }))
        : undefined,
      store: this.data,
      now: Date.now,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (id) => clearTimeout(id as number),
      random: Math.random,
      warn: (m) => console.warn(m),
    });
  }

  /** Whether events are captured now: not opted out, consent given when required, GPC, sampling. */
  capturing(): boolean {
    const c = this.cfg;
    if (this.prefs.get(OPT_OUT) === "1") return false;
    if (c.requireConsent && this.prefs.get(CONSENT) !== "granted") return false;
    if (this.gpc && c.gpc === "block") return false;
    return inSample(this.identity.anonymousId(), c.sampleRate ?? 1);
  }

  private context(): Record<string, unknown> {
    const conn = (navigator as { connection?: { type?: string; effectiveType?: string } }).connection;
    this.touches ??= rememberTouch(this.data, touchOf(location.href, document.referrer));
    return {
      user_agent: navigator.userAgent,
      language: navigator.language,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      screen_width: screen.width,
      screen_height: screen.height,
      viewport_width: innerWidth,
      viewport_height: innerHeight,
      online: navigator.onLine,
      connection_type: conn?.type ?? conn?.effectiveType ?? null,
      environment: this.cfg.environment ?? null,
      sdk_version: SDK_VERSION,
      consent: this.cfg.requireConsent ? "granted" : "not_required",
      gpc: this.gpc,
      sample_rate: this.cfg.sampleRate ?? 1,
      ...this.touches,
    };
  }

  private emit(type: string, props: Record<string, unknown>, fp?: Fingerprint, page = this.page): void {
    if (!this.capturing()) return;
    // A caller's property the service cannot take (too many keys, too large) or a getter that throws drops
    // that one event with a warning: it never throws into the page, and never reaches a batch the service
    // would refuse whole.
    try {
      const tally = { keys: 0, strings: 0, longestKey: 0 };
      const event: WireEvent = {
        event_id: uuid(),
        anonymous_id: this.identity.anonymousId(),
        user_id: this.identity.userId(),
        session_id: this.identity.sessionId(),
        sequence_no: this.seq++,
        platform: "web",
        event_type: type,
        screen: maskText(page.screen),
        properties: maskDeep({ path: page.path, url: page.url, ...props }, tally),
        context: this.context(),
        device_time: new Date().toISOString(),
      };
      if (fp) event.fingerprint = maskDeep({ ...fp });
      const over = overLimits(tally, JSON.stringify([event.properties, event.fingerprint]));
      if (over) throw new Error(`its properties hold ${over}`);
      this.queue.add(event);
    } catch (e) {
      console.warn(`[analytics] event ${type} not sent: ${(e as Error)?.message ?? e}`);
      return;
    }
    // Reports that arrive while the page is hidden (web vitals do) may be the last chance to send.
    if (document.visibilityState === "hidden") this.queue.flushBeacon(false);
  }

  private pageview(): void {
    this.left = false;
    this.progress.restart(document.visibilityState !== "hidden");
    this.measureScroll();
    this.emit("$pageview", { title: document.title, referrer: document.referrer || null });
  }

  private leave(): void {
    if (this.left) return;
    this.left = true;
    this.measureScroll();
    this.emit("$pageleave", {
      depth_percent: this.progress.depthPercent(),
      engagement_time_ms: this.progress.engagementMs(),
    });
  }

  private measureScroll(): void {
    const doc = document.documentElement;
    this.progress.seen(scrollY, innerHeight, Math.max(doc.scrollHeight, document.body?.scrollHeight ?? 0));
  }

  /** A single-page navigation: leave the old page, view the new one (only when the URL really changed). */
  private navigated(): void {
    const next = pageInfo(location.href, this.params);
    if (next.url === this.page.url && next.screen === this.page.screen) return;
    this.leave();
    this.page = next;
    this.pageview();
  }

  start(): void {
    this.queue.adoptStored();
    for (const name of ["pushState", "replaceState"] as const) {
      const original = history[name];
      history[name] = (...args: Parameters<History["pushState"]>) => {
        original.apply(history, args);
        this.navigated();
      };
    }
    addEventListener("popstate", () => this.navigated());
    addEventListener("hashchange", () => this.navigated());
    addEventListener("scroll", () => {
      this.measureScroll();
      this.progress.active();
    }, { passive: true });
    for (const t of ["mousedown", "keydown", "touchstart", "pointermove"]) {
      addEventListener(t, () => this.progress.active(), { passive: true, capture: true });
    }
    document.addEventListener("visibilitychange", () => {
      const hidden = document.visibilityState === "hidden";
      this.progress.visibility(!hidden);
      if (hidden) this.queue.flushBeacon(false);
    });
    addEventListener("pagehide", () => {
      this.leave();
      this.queue.flushBeacon(true);
    });
    addEventListener("pageshow", (e) => {
      if (!(e as PageTransitionEvent).persisted) return;
      this.queue.reopen();
      this.pageview();
    });
    if (this.cfg.autocapture !== false) {
      installAutocapture(document, (props, fp) => this.emit("$autocapture", props, fp), Date.now);
    }
    if (this.cfg.webVitals !== false) {
      const report = (m: { name: string; value: number; rating: string }) =>
        this.emit("$web_vitals", {
          metric: m.name,
          value: m.name === "CLS" ? Math.round(m.value * 10000) / 10000 : Math.round(m.value),
          rating: m.rating,
        });
      onLCP(report);
      onINP(report);
      onCLS(report);
    }
    this.pageview();
  }

  track(name: string, properties?: Record<string, unknown>): void {
    const type = eventName(name);
    const props = properties && typeof properties === "object" && !Array.isArray(properties)
      ? properties
      : {};
    if (type) this.emit(type, props);
  }

  identify(userId: string): void {
    const id = cut(String(userId), 128);
    if (!id || this.data !== this.prefs) return; // GPC anonymous mode keeps no identity
    if (!this.capturing()) return;
    this.identity.setUserId(id);
    this.emit("$identify", {});
  }

  /** Logout: forget the user, the visitor id and the session. */
  reset(): void {
    this.identity.reset();
  }

  optOut(): void {
    this.prefs.set(OPT_OUT, "1");
    this.queue.clear();
    this.identity.reset();
  }

  optIn(): void {
    const was = this.capturing();
    this.prefs.remove(OPT_OUT);
    if (!was && this.capturing()) this.pageview();
  }

  /** The visitor's consent decision (only matters with requireConsent); granting starts capture. */
  setConsent(granted: boolean): void {
    const was = this.capturing();
    this.prefs.set(CONSENT, granted ? "granted" : "denied");
    if (!granted) {
      this.queue.clear();
      this.identity.reset();
    } else if (!was && this.capturing()) this.pageview();
  }

  /** Sends what is queued now (the returned promise settles when the request does). */
  flush(): Promise<void> {
    return this.queue.flush();
  }
}
