/**
 * Queues hits and posts them in batches, reacting to each response class exactly as the spec's
 * "Sender client behavior by response" says. Nothing here is awaited on the host's request path.
 */
import type { CrawlHit } from "./hit.ts";
import type { Logger } from "./log.ts";
import { sleep, type Timers } from "./timers.ts";
import {
  describeError,
  describeOutcome,
  envelopeBytes,
  type FetchLike,
  type Outcome,
  parseRetryAfter,
  postHits,
} from "./transport.ts";

export type { FetchLike } from "./transport.ts";

export interface SenderSettings {
  baseUrl: string;
  serverKey: string;
  fetch: FetchLike;
  timers: Timers;
  logger: Logger;
  batchSize: number;
  flushIntervalMs: number;
  maxQueueSize: number;
  retryDelayMs: number;
  timeoutMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  flushTimeoutMs: number;
  sdk: { name: string; version: string };
}

/** Why hits were given up: each counts hits, not batches. */
export interface DroppedCounts {
  queue_full: number;
  too_large: number;
  failed: number;
  rejected: number;
  unauthorized: number;
  shutdown: number;
}

/** What the service said about the hits it received (sum of the 202 bodies). */
export interface ServiceCounts {
  accepted: number;
  duplicates: number;
  rejected: Record<string, number>;
}

export const MAX_BATCH_HITS = 500;
/** The service refuses 1 MB and more; stay strictly below. */
export const MAX_BATCH_BYTES = 1_000_000;

interface Queued {
  hit: CrawlHit;
  bytes: number;
}

const encoder = new TextEncoder();

export class Sender {
  private queue: Queued[] = [];
  /** A batch the service asked us to keep (429): sent again before anything newer. */
  private held: Queued[] | null = null;
  private inFlight = 0;
  private sending: Promise<void> | null = null;
  private timer: unknown = null;
  private timerAt = Infinity;
  private pausedUntil = 0;
  private backoffStep = 0;
  private batchLimit: number;
  private stopped = false;
  private closed = false;
  private sent = 0;
  readonly dropped: DroppedCounts = {
    queue_full: 0,
    too_large: 0,
    failed: 0,
    rejected: 0,
    unauthorized: 0,
    shutdown: 0,
  };
  readonly service: ServiceCounts = {
    accepted: 0,
    duplicates: 0,
    rejected: {},
  };

  constructor(private readonly s: SenderSettings) {
    this.batchLimit = Math.max(
      1,
      Math.min(MAX_BATCH_HITS, Math.floor(s.batchSize)),
    );
  }

  /** Synchronous and cheap: called from the request path. */
  enqueue(hit: CrawlHit): void {
    if (this.stopped) return void this.dropped.unauthorized++;
    if (this.closed) return void this.dropped.shutdown++;
    this.queue.push({ hit, bytes: encoder.encode(JSON.stringify(hit)).length });
    while (this.queue.length > 0 && this.pending() > this.s.maxQueueSize) {
      this.queue.shift();
      this.dropped.queue_full++;
    }
    this.schedule(
      this.queue.length >= this.batchLimit ? 0 : this.s.flushIntervalMs,
    );
  }

  /** Hits not yet settled: waiting, held after a 429, or in flight. */
  pending(): number {
    return this.queue.length + (this.held?.length ?? 0) + this.inFlight;
  }

  snapshot() {
    return {
      queued: this.pending(),
      sent: this.sent,
      dropped: { ...this.dropped },
      service: { ...this.service, rejected: { ...this.service.rejected } },
      stopped: this.stopped,
      batchSize: this.batchLimit,
      pausedUntil: this.pausedUntil > this.s.timers.now() ? this.pausedUntil : null,
    };
  }

  /** Sends everything queued now, waiting through short pauses, until done or `flushTimeoutMs` passes. */
  async flush(): Promise<void> {
    const deadline = this.s.timers.now() + this.s.flushTimeoutMs;
    while (!this.stopped && this.queue.length + (this.held?.length ?? 0) > 0) {
      if (this.sending) {
        await this.sending;
        continue;
      }
      const wait = this.pausedUntil - this.s.timers.now();
      if (wait > 0) {
        if (this.s.timers.now() + wait > deadline) break;
        await sleep(this.s.timers, wait);
        continue;
      }
      this.startSend();
    }
    if (this.sending) await this.sending;
  }

  /** Stops accepting hits, sends what is queued, and counts whatever could not be sent. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.clearTimer();
    await this.flush();
    this.dropped.shutdown += this.queue.length + (this.held?.length ?? 0);
    this.queue = [];
    this.held = null;
    this.clearTimer();
  }

  private schedule(delay: number): void {
    if (this.closed || this.stopped) return;
    const at = this.s.timers.now() + Math.max(0, delay);
    if (this.timer !== null && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.s.timers.setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, delay));
    this.s.timers.unref?.(this.timer);
  }

  private clearTimer(): void {
    if (this.timer !== null) this.s.timers.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  private pump(): void {
    if (this.sending || this.stopped || this.closed) return;
    const wait = this.pausedUntil - this.s.timers.now();
    if (wait > 0) return this.schedule(wait);
    if (this.queue.length + (this.held?.length ?? 0) > 0) this.startSend();
  }

  private startSend(): void {
    const batch = this.held ?? this.takeBatch();
    this.held = null;
    this.inFlight = batch.length;
    this.sending = this.sendBatch(batch)
      .catch((err) => this.s.logger.error(`unexpected sender error: ${describeError(err)}`))
      .finally(() => {
        this.inFlight = 0;
        this.sending = null;
        this.scheduleNext();
      });
  }

  private scheduleNext(): void {
    const waiting = this.queue.length + (this.held?.length ?? 0);
    if (waiting === 0) return;
    const wait = this.pausedUntil - this.s.timers.now();
    if (wait > 0) this.schedule(wait);
    else {this.schedule(
        waiting >= this.batchLimit || this.held ? 0 : this.s.flushIntervalMs,
      );}
  }

  /** Takes the oldest hits that fit both the hit count and the byte limit of one request. */
  private takeBatch(): Queued[] {
    let bytes = envelopeBytes(this.s.sdk);
    let count = 0;
    while (count < this.queue.length && count < this.batchLimit) {
      const next = bytes + this.queue[count].bytes + (count > 0 ? 1 : 0);
      if (count > 0 && next >= MAX_BATCH_BYTES) break;
      bytes = next;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async sendBatch(batch: Queued[]): Promise<void> {
    const hits = batch.map((q) => q.hit);
    for (let attempt = 1;; attempt++) {
      const outcome = await postHits(this.s, hits);
      const status = outcome.kind === "response" ? outcome.status : 0;
      if (status >= 200 && status < 300) {
        this.sent += batch.length;
        this.backoffStep = 0;
        if (outcome.kind === "response") this.countServiceResult(outcome.body);
        return;
      }
      if (status === 401 || status === 403) return this.stop(outcome, batch.length);
      if (status === 413) {
        this.dropped.too_large += batch.length;
        this.batchLimit = Math.max(1, Math.floor(this.batchLimit / 2));
        this.s.logger.warn(
          `dropped ${batch.length} hits as too large (413); batch size now ${this.batchLimit}`,
        );
        this.pauseFor(this.nextBackoff());
        return;
      }
      if (status === 429) {
        this.held = batch;
        const retryAfter = outcome.kind === "response" ? outcome.retryAfter : null;
        this.pauseFor(parseRetryAfter(retryAfter, this.s.timers.now()) ?? this.nextBackoff());
        return;
      }
      if (status === 0 || status === 408 || status >= 500) {
        if (attempt === 1) {
          await sleep(this.s.timers, this.s.retryDelayMs);
          continue;
        }
        this.dropped.failed += batch.length;
        this.s.logger.warn(`dropped ${batch.length} hits after a retry failed (${describeOutcome(outcome)})`);
        this.pauseFor(this.nextBackoff());
        return;
      }
      this.dropped.rejected += batch.length;
      this.s.logger.warn(
        `dropped ${batch.length} hits: the service refused the batch (${describeOutcome(outcome)})`,
      );
      return;
    }
  }

  /** 401/403: the key will not start working by itself; stop for good and say so once. */
  private stop(outcome: Outcome, batchHits: number): void {
    this.stopped = true;
    this.clearTimer();
    this.dropped.unauthorized += batchHits + this.queue.length + (this.held?.length ?? 0);
    this.queue = [];
    this.held = null;
    this.s.logger.error(
      `the service refused the server key (${
        describeOutcome(outcome)
      }). Crawler reporting is stopped until ` +
        "the process restarts: check that the server key is a current svc_sk_ key of this site's environment, " +
        "that the environment is turned on, and that requests carry no Origin header.",
    );
  }

  private pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.s.timers.now() + ms);
  }

  private nextBackoff(): number {
    const ms = Math.min(
      this.s.maxBackoffMs,
      this.s.backoffMs * 2 ** this.backoffStep,
    );
    this.backoffStep = Math.min(this.backoffStep + 1, 30);
    return ms;
  }

  private countServiceResult(body: string): void {
    try {
      const result = JSON.parse(body) as Partial<ServiceCounts>;
      this.service.accepted += Number(result.accepted) || 0;
      this.service.duplicates += Number(result.duplicates) || 0;
      for (const [reason, n] of Object.entries(result.rejected ?? {})) {
        this.service.rejected[reason] = (this.service.rejected[reason] ?? 0) +
          (Number(n) || 0);
      }
    } catch {
      // A 2xx without the documented body still counts as sent.
    }
  }
}
