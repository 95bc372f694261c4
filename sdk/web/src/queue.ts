/**
 * Delivery: batches events by count and time, posts them with fetch (keepalive), retries on 429 (after
 * Retry-After), 408, 5xx and network errors with backoff, and sends what is left by sendBeacon when the
 * page goes away. Unsent events are kept in storage (bounded) so they survive a page load; a retried
 * batch keeps its event ids, so the service stores each event once, as long as it comes within the service's
 * 35-day dedupe window: events older than 7 days are dropped unsent. 401, 403 and 422 drop the batch and
 * warn once; a 422 that names one event (`batch[3]...`) drops only that event and sends the rest again.
 */
import type { Store } from "./storage.ts";

/** One BehaviorEvent as the spec defines it. */
export interface WireEvent {
  event_id: string;
  anonymous_id: string;
  user_id: string | null;
  session_id: string;
  sequence_no: number;
  platform: "web";
  event_type: string;
  screen: string;
  fingerprint?: Record<string, unknown> | null;
  properties: Record<string, unknown>;
  context?: Record<string, unknown>;
  device_time: string;
}

export interface QueueEnv {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** navigator.sendBeacon with the body as an application/json Blob, when the browser has it. */
  beacon?: (url: string, body: string) => boolean;
  store: Store;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (id: unknown) => void;
  random: () => number;
  warn: (message: string) => void;
}

export interface QueueOptions {
  endpoint: string;
  apiKey: string;
  /** Id of this page load; the stored copy of the queue is kept under it. */
  loadId: string;
  batchSize?: number;
  flushMs?: number;
  maxQueue?: number;
}

export const STORE_PREFIX = "bsdk_q:";
const MAX_BATCH = 200; // the spec's limit per request
const BEACON_BYTES = 60_000; // browsers refuse beacons (and keepalive bodies) past 64 KiB of UTF-8
/** A body's size as browsers count it for keepalive and beacons: UTF-8 bytes, not UTF-16 units. */
const bytes = (body: string): number => new Blob([body]).size;
const MAX_BACKOFF_MS = 60_000;
const MAX_BODY = 900_000; // the service takes 1 MB a request; 20 events of Cyrillic text can pass it
const ORPHAN_MS = 24 * 3600_000;
/** Older events are dropped: well inside the service's 35-day dedupe window, and counted near their day. */
export const STALE_MS = 7 * 24 * 3600_000;

interface StoredQueue {
  t: number;
  closed: boolean;
  events: WireEvent[];
}

export class EventQueue {
  events: WireEvent[] = [];
  private sending = new Set<string>();
  private retryAt = 0;
  private attempt = 0;
  private timer: unknown = null;
  private warned = new Set<number>();
  /** Set by pagehide: the stored queue is free for the next page load to take (until a bfcache restore). */
  private closed = false;
  private readonly batchSize: number;
  private readonly flushMs: number;
  private readonly maxQueue: number;

  constructor(private opts: QueueOptions, private env: QueueEnv) {
    this.batchSize = Math.min(Math.max(opts.batchSize ?? 20, 1), MAX_BATCH);
    this.flushMs = opts.flushMs ?? 3000;
    this.maxQueue = opts.maxQueue ?? 500;
  }

  /** Takes over events left by earlier page loads that closed (or vanished a day ago) and sends them. */
  adoptStored(): void {
    const own = STORE_PREFIX + this.opts.loadId;
    for (const key of this.env.store.keys()) {
      if (!key.startsWith(STORE_PREFIX) || key === own) continue;
      let saved: StoredQueue | null = null;
      try {
        saved = JSON.parse(this.env.store.get(key) ?? "null");
      } catch { /* unreadable: dropped below */ }
      if (saved && !saved.closed && this.env.now() - saved.t < ORPHAN_MS) continue; // another open tab
      this.env.store.remove(key);
      const known = new Set(this.events.map((e) => e.event_id));
      for (const e of saved?.events ?? []) if (!known.has(e.event_id)) this.events.push(e);
    }
    this.trim();
    this.persist();
    if (this.events.length) this.schedule(0);
  }

  add(event: WireEvent): void {
    this.events.push(event);
    this.trim();
    this.persist();
    this.schedule(this.events.length - this.sending.size >= this.batchSize ? 0 : this.flushMs);
  }

  /** Drops everything queued (opt-out). */
  clear(): void {
    this.events = [];
    this.persist();
  }

  private trim(): void {
    const oldest = this.env.now() - STALE_MS;
    this.events = this.events.filter((e) =>
      this.sending.has(e.event_id) || !(Date.parse(e.device_time) < oldest)
    );
    // Bounded: the oldest unsent events go first.
    while (this.events.length > this.maxQueue) {
      const i = this.events.findIndex((e) => !this.sending.has(e.event_id));
      this.events.splice(i < 0 ? 0 : i, 1);
    }
  }

  private persist(): void {
    const key = STORE_PREFIX + this.opts.loadId;
    if (!this.events.length) return this.env.store.remove(key);
    const saved: StoredQueue = { t: this.env.now(), closed: this.closed, events: this.events };
    this.env.store.set(key, JSON.stringify(saved));
  }

  private schedule(ms: number): void {
    if (this.timer !== null) {
      if (ms > 0) return; // a flush is already due
      this.env.clearTimer(this.timer);
    }
    const wait = Math.max(ms, this.retryAt - this.env.now(), 0);
    this.timer = this.env.setTimer(() => {
      this.timer = null;
      void this.flush();
    }, wait);
  }

  private body(batch: WireEvent[]): string {
    return JSON.stringify({ api_key: this.opts.apiKey, batch });
  }

  /** Sends one batch with fetch; resolves when its outcome is known. */
  async flush(): Promise<void> {
    if (this.sending.size || !this.events.length) return;
    if (this.env.now() < this.retryAt) return this.schedule(0);
    let batch = this.events.slice(0, this.batchSize);
    while (batch.length > 1 && bytes(this.body(batch)) > MAX_BODY) batch = batch.slice(0, batch.length >> 1);
    const body = this.body(batch);
    for (const e of batch) this.sending.add(e.event_id);
    let status = 0;
    let retryAfterS = 0;
    let bad = -1;
    try {
      const res = await this.env.fetch(this.opts.endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        // a larger keepalive body is refused by the browser, every retry: it goes as a plain fetch
        keepalive: bytes(body) < BEACON_BYTES,
        credentials: "omit",
      });
      status = res.status;
      retryAfterS = Number(res.headers.get("retry-after")) || 0;
      // The service names the first event it refuses: "batch[3].properties: ..."
      if (status === 422) bad = Number(/^batch\[(\d+)\]/.exec((await res.json()).error)?.[1] ?? -1);
    } catch { /* network error: status 0, retried; a 422 without a readable body drops the batch */ }
    this.sending.clear();
    if (status === 429 || status === 408 || status === 0 || status >= 500) {
      this.attempt++;
      const backoff = Math.min(1000 * 2 ** (this.attempt - 1), MAX_BACKOFF_MS) *
        (0.8 + 0.4 * this.env.random());
      this.retryAt = this.env.now() + Math.max(retryAfterS * 1000, backoff);
    } else {
      this.attempt = 0;
      this.retryAt = 0;
      if (status >= 300) this.warnOnce(status);
      const done = new Set((batch[bad] ? [batch[bad]] : batch).map((e) => e.event_id));
      this.events = this.events.filter((e) => !done.has(e.event_id));
    }
    this.persist();
    if (this.events.length) {
      this.schedule(this.events.length >= this.batchSize || this.attempt || batch[bad] ? 0 : this.flushMs);
    }
  }

  private warnOnce(status: number): void {
    if (this.warned.has(status)) return;
    this.warned.add(status);
    const why = status === 401
      ? "the api key is unknown or its environment is off"
      : status === 403
      ? "this page's origin is not allowed for the api key"
      : "the service rejected an event as invalid";
    this.env.warn(`[analytics] events dropped (HTTP ${status}): ${why}`);
  }

  /**
   * The page is going away or hidden: everything not already in flight goes by sendBeacon. While the
   * service asked us to wait (429, 5xx), nothing is sent; the events stay stored for the next page load.
   */
  flushBeacon(closing: boolean): void {
    const beacon = this.env.beacon;
    if (beacon && this.env.now() >= this.retryAt) {
      let pending = this.events.filter((e) => !this.sending.has(e.event_id));
      while (pending.length) {
        let n = Math.min(pending.length, MAX_BATCH);
        while (n > 1 && bytes(this.body(pending.slice(0, n))) > BEACON_BYTES) n = Math.ceil(n / 2);
        const batch = pending.slice(0, n);
        const body = this.body(batch);
        pending = pending.slice(n);
        // one event too large for any beacon stays stored for a plain fetch; the rest still go
        if (bytes(body) > BEACON_BYTES) continue;
        let ok = false;
        try {
          ok = beacon(this.opts.endpoint, body);
        } catch { /* refused: the events stay stored */ }
        if (!ok) break;
        const sent = new Set(batch.map((e) => e.event_id));
        this.events = this.events.filter((e) => !sent.has(e.event_id));
      }
    }
    // pagehide comes before the last visibilitychange: once closing, the page stays closed.
    this.closed ||= closing;
    this.persist();
  }

  /** After a bfcache restore the page is open again: its stored queue is its own. */
  reopen(): void {
    this.persist();
  }
}
