/** The public entry point: one reporter per process, shared by whichever adapter the host uses. */
import { buildHit, type SeenRequest, type SeenResponse, type TrustProxy } from "./hit.ts";
import { consoleLogger, type Logger, safeLogger } from "./log.ts";
import type { IgnorePath } from "./paths.ts";
import { decide, type ShouldReport, type SkipReason } from "./rules.ts";
import { type DroppedCounts, type FetchLike, MAX_BATCH_HITS, Sender, type ServiceCounts } from "./sender.ts";
import { systemTimers, type Timers } from "./timers.ts";
import { SDK_NAME, SDK_VERSION } from "./version.ts";

export interface ReporterOptions {
  /** Secret server key of the site's environment (`svc_sk_prod_…`, `svc_sk_stg_…` or `svc_sk_dev_…`). */
  serverKey: string | undefined;
  /** Base address of the service, e.g. "https://collect.example.com"; the SDK posts to /v1/behavior/server-events. */
  baseUrl: string | undefined;
  /**
   * Take the client address and host from forwarding headers: `true` behind one proxy you control (the last
   * X-Forwarded-For hop), a number behind that many proxies (that hop from the end of X-Forwarded-For). Hops
   * a client wrote are never taken.
   */
  trustProxy?: TrustProxy;
  /**
   * With `trustProxy`: the single-value header your edge sets (or overwrites) to the client address, e.g.
   * "cf-connecting-ip" behind Cloudflare, "x-real-ip" with nginx's `proxy_set_header X-Real-IP
   * $remote_addr`. Read before X-Forwarded-For. Unset (the default): no such header is read, as a proxy that
   * does not set it passes the client's own through.
   */
  ipHeader?: string;
  /** Query parameters kept in the reported path; all others are removed (they may carry personal data). */
  queryAllowlist?: readonly string[];
  /** More paths never reported: a string is a path prefix, a RegExp is tested against the path. */
  ignorePaths?: readonly IgnorePath[];
  /** Runs last, synchronously; return false (or throw) to leave a request out. */
  shouldReport?: ShouldReport;
  /** Hits per request, at most 500 (the service's limit); halved after a 413. */
  batchSize?: number;
  /** Longest time a hit waits before its batch is sent. Default 5 s. */
  flushIntervalMs?: number;
  /** Hits kept while the service is slow or away; the oldest are dropped beyond it. Default 10,000. */
  maxQueueSize?: number;
  /** Delay before the single retry after 408, 5xx, network error or timeout. Default 2 s. */
  retryDelayMs?: number;
  /** Time allowed for one request to the service. Default 10 s. */
  timeoutMs?: number;
  /** First backoff pause; doubles on each further failure up to `maxBackoffMs`. Defaults 1 s and 5 min. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Longest time `flush()`/`shutdown()` waits through pauses. Default 10 s. */
  flushTimeoutMs?: number;
  /** Turn reporting off without removing the adapter (e.g. in tests). Default true. */
  enabled?: boolean;
  /** Injected for tests or special runtimes. */
  fetch?: FetchLike;
  timers?: Timers;
  logger?: Logger;
}

export interface ReporterStats {
  /** Hits waiting, held after a 429, or in flight. */
  queued: number;
  /** Hits in batches the service acknowledged with 2xx. */
  sent: number;
  dropped: DroppedCounts;
  /** Requests not reported, by the rule that left them out. */
  skipped: Record<SkipReason, number>;
  /** Sum of the service's 202 answers: accepted, duplicates, rejected by reason. */
  service: ServiceCounts;
  /** True after a 401 or 403: nothing more is sent until restart. */
  stopped: boolean;
  batchSize: number;
  /** Epoch ms until which sending pauses (429 or backoff), or null. */
  pausedUntil: number | null;
}

export interface CrawlReporter {
  /** Synchronous, never throws: decide whether a finished request is a crawler hit and queue it. */
  observe(req: SeenRequest, res: SeenResponse, receivedAt?: number): void;
  stats(): ReporterStats;
  /** Sends what is queued now. */
  flush(): Promise<void>;
  /** Sends what is queued and stops; call on SIGTERM or before the process ends. */
  shutdown(): Promise<void>;
  readonly trustProxy: TrustProxy;
  /** Current time of the reporter's clock (adapters stamp request arrival with it). */
  now(): number;
}

export function createCrawlReporter(options: ReporterOptions): CrawlReporter {
  const logger = safeLogger(options.logger ?? consoleLogger);
  const timers = options.timers ?? systemTimers;
  const trustProxy = options.trustProxy ?? false;
  const skipped = emptySkips();
  const sender = makeSender(options, logger, timers);
  const ruleSettings = {
    ignorePaths: options.ignorePaths ?? [],
    shouldReport: options.shouldReport,
  };
  const hitSettings = {
    trustProxy,
    ipHeader: options.ipHeader?.trim().toLowerCase() || null,
    queryAllowlist: options.queryAllowlist ?? [],
  };
  let observeFailureLogged = false;

  return {
    trustProxy,
    now: () => timers.now(),
    observe(req, res, receivedAt) {
      try {
        if (!sender) return;
        const decision = decide(req, res, ruleSettings);
        if (!decision.report) {
          skipped[decision.reason]++;
          return;
        }
        sender.enqueue(
          buildHit(req, res, receivedAt ?? timers.now(), hitSettings),
        );
      } catch (err) {
        // Never let reporting break the host's request; say so once.
        if (!observeFailureLogged) {
          logger.warn(`could not report a request: ${String(err)}`);
        }
        observeFailureLogged = true;
      }
    },
    stats() {
      const base = sender?.snapshot() ?? inertSnapshot();
      return { ...base, skipped: { ...skipped } };
    },
    flush: () => sender?.flush() ?? Promise.resolve(),
    shutdown: () => sender?.shutdown() ?? Promise.resolve(),
  };
}

/** A reporter without key or address stays inert and says why once, instead of failing the host at startup. */
function makeSender(
  options: ReporterOptions,
  logger: Logger,
  timers: Timers,
): Sender | null {
  if (options.enabled === false) return null;
  if (!options.serverKey || !options.baseUrl) {
    logger.warn(
      `crawler reporting is off: ${!options.serverKey ? "serverKey" : "baseUrl"} is not set`,
    );
    return null;
  }
  return new Sender({
    baseUrl: options.baseUrl,
    serverKey: options.serverKey,
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    timers,
    logger,
    batchSize: Math.min(options.batchSize ?? MAX_BATCH_HITS, MAX_BATCH_HITS),
    flushIntervalMs: options.flushIntervalMs ?? 5_000,
    maxQueueSize: options.maxQueueSize ?? 10_000,
    retryDelayMs: options.retryDelayMs ?? 2_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    backoffMs: options.backoffMs ?? 1_000,
    maxBackoffMs: options.maxBackoffMs ?? 300_000,
    flushTimeoutMs: options.flushTimeoutMs ?? 10_000,
    sdk: { name: SDK_NAME, version: SDK_VERSION },
  });
}

function emptySkips(): Record<SkipReason, number> {
  return {
    method: 0,
    path: 0,
    content_type: 0,
    no_user_agent: 0,
    health_probe: 0,
    browser: 0,
    should_report: 0,
  };
}

function inertSnapshot() {
  const dropped = {
    queue_full: 0,
    too_large: 0,
    failed: 0,
    rejected: 0,
    unauthorized: 0,
    shutdown: 0,
  };
  return {
    queued: 0,
    sent: 0,
    dropped,
    service: { accepted: 0, duplicates: 0, rejected: {} },
    stopped: false,
    batchSize: 0,
    pausedUntil: null,
  };
}
