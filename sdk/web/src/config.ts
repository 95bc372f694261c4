/** Settings a site passes to init() (or as data- attributes on the classic script tag). */
export interface Config {
  /** Public write key of the website environment (`svc_pk_…`). */
  apiKey: string;
  /** Base address of the service, or of a first-party reverse proxy in front of it. Default: this page's origin. */
  host?: string;
  /** Full address of the events endpoint; overrides `host`. */
  endpoint?: string;
  /** Reported as context.environment (the service knows the real one from the key). */
  environment?: string;
  /** Query parameters kept in `url` besides the UTM ones; all others are cut. */
  allowParams?: string[];
  /** Share of visitors captured, 0 to 1; whole visitors are sampled, not events. Default 1 (also for NaN). */
  sampleRate?: number;
  /** When true nothing is captured or stored until setConsent(true). Default false. */
  requireConsent?: boolean;
  /**
   * Global Privacy Control: "anonymous" (default) keeps nothing in storage (no visitor id across page
   * loads, identify() ignored); "block" captures nothing; "ignore" treats it as absent.
   */
  gpc?: "anonymous" | "block" | "ignore";
  /** Clicks, submits and changes. Default true. */
  autocapture?: boolean;
  /** Core Web Vitals (LCP, INP, CLS). Default true. */
  webVitals?: boolean;
  /** Events per request (1-200). Default 20. */
  batchSize?: number;
  /** Longest wait before a partial batch is sent, in ms. Default 3000. */
  flushIntervalMs?: number;
  /** Most events kept while the service cannot be reached; the oldest go first. Default 500. */
  maxQueue?: number;
}

export const SDK_VERSION = "0.1.0";
