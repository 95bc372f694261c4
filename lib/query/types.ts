/**
 * The read engine's vocabulary: scopes, filters, fields, metrics, result shapes, and the questions an
 * engine answers (`Engine`).
 * Tools build answers from these; see lib/query/README.md for examples.
 */
import type { EnvName, Traffic } from "../store/records.ts";
import type { Bucket } from "../time/buckets.ts";

export type { Bucket };

/** Fields of web events a filter or a breakdown can name. `prop:<name>` is an event property. */
export type EventField =
  | "page"
  | "host"
  | "country"
  | "city"
  | "device_type"
  | "browser"
  | "os"
  | "platform"
  | "source"
  | "channel"
  | "referrer_host"
  | "utm_source"
  | "utm_medium"
  | "utm_campaign"
  | "utm_term"
  | "utm_content"
  | "event_type"
  | "element"
  | "crawler"
  /** the catalog category of the crawler or agent token (bot and AI-agent events; human events: null) */
  | "crawler_category"
  | "traffic"
  | "touchpoint"
  /** session-level: the path of the session's first / last pageview in scope */
  | "entry_page"
  | "exit_page"
  | `prop:${string}`;

/** Fields of crawler hits. `verification` is the effective outcome (a later check wins over arrival). */
export type HitField =
  | "page"
  | "host"
  | "country"
  | "crawler"
  | "vendor"
  | "category"
  | "verification"
  | "status"
  | "status_class"
  | "method"
  | "site_file"
  | "via"
  | "crawled"
  | "touchpoint";

/** `prefix`: the value starts with one of the given strings (case-sensitive), e.g. pages under /docs/. */
export type FilterOp = "eq" | "neq" | "contains" | "in" | "prefix";

/**
 * One condition; several are combined with AND. Values compare as strings (numbers and booleans of
 * properties as `String(v)`). A missing value (null) never equals, never contains and is never `in`;
 * `neq` matches it.
 */
export interface Filter<F extends string = EventField> {
  field: F;
  op: FilterOp;
  value: string | string[];
}

/** What a question is about. `from` inclusive, `to` exclusive, epoch ms. */
export interface Scope {
  org: string;
  env: EnvName;
  /** a touchpoint id; omitted or null: all touchpoints of the environment */
  touchpoint?: string | null;
  from: number;
  to: number;
  /** IANA timezone of the organization; buckets are cut in it */
  timezone: string;
  /** web events only; default ["human"]. Bots and AI agents never count as visitors. */
  traffic?: Traffic[];
  filters?: Filter[];
  /**
   * Only the visitors of this cohort (exact: evaluated over the stored events, see cohort/evaluate.ts); bots
   * and AI agents are never in a cohort, so a cohort scope counts human traffic only.
   */
  cohort?: CohortExpr;
  /**
   * Refuse (a 422) a cohort a part of which alone decides 1 to 4 visitors (cohort/evaluate.ts `tellsFew`):
   * the tools ask with it (spec rule 5); the engine's own checks against plain references leave it out.
   */
  guardCohort?: boolean;
}

/**
 * A set of visitors, defined by what they did. Windows are absolute (`from` inclusive, `to` exclusive, epoch
 * ms); conditions count the human events of the scope's touchpoint.
 * - `did`: at least `min` (default 1) events matching all `filters` in the window (`filters: []`: any event);
 *   entry_page / exit_page are not conditions of a cohort
 * - `first`: the visitor's first event in the window (by receive time, device time, sequence number)
 *   matches `filter` (first-touch source, channel, campaign …)
 * - `all` / `any` / `not`: and, or, not (`not` of a visitor with no events at all holds)
 */
export type CohortExpr =
  | { all: CohortExpr[] }
  | { any: CohortExpr[] }
  | { not: CohortExpr }
  | { did: { filters: Filter[]; min?: number; from: number; to: number } }
  | { first: { filter: Filter; from: number; to: number } };

export interface HitScope extends Omit<Scope, "traffic" | "filters" | "cohort"> {
  filters?: Filter<HitField>[];
}

export type Metric =
  | "visitors"
  /** distinct visitors with a matching human `$pageview` (a page's visitors are the ones who viewed it) */
  | "viewers"
  /** distinct visitors with an engaged session among the row's sessions (lib/query/scan/engaged.ts) */
  | "engaged_visitors"
  | "sessions"
  | "pageviews"
  | "events"
  | "views_per_session"
  | "bounce_rate"
  | "session_duration_s"
  | "engagement_time_s"
  | "scroll_depth_percent"
  /**
   * distinct visitors with a matching human `$pageleave` giving both `engagement_time_ms` and `depth_percent`
   * (the visitors behind `engagement_time_s` and `scroll_depth_percent`), counted up to 5: 5 reads "5 or
   * more", all the small-group rule asks (lib/query/rollup/reporters.ts)
   */
  | "reporters"
  | "exit_rate"
  | "exits"
  | "entries"
  | "rage_clicks"
  | "conversions"
  | "conversion_rate"
  /**
   * events lost inside page loads of the row's sessions: gaps in `sequence_no` over each session's human
   * events in scope, whatever batch they came in (lib/query/scan/drops.ts)
   */
  | "dropped_events";

export type HitMetric =
  | "requests"
  | "pages"
  | "crawled_requests"
  | "last_crawl_at"
  | "first_seen_at"
  /** the latest request of the row, crawled or not (last_crawl_at counts only pages the crawler got) */
  | "last_seen_at";

/** A conversion goal: an event type and optional conditions on that event. */
export interface Goal {
  event_type: string;
  filters?: Filter[];
}

export interface AggregateOptions {
  metrics: Metric[];
  breakdown?: EventField[];
  bucket?: Bucket;
  /** default: the first metric, descending */
  sort?: { by: Metric | "key"; desc?: boolean };
  /** default: all rows */
  limit?: number;
  offset?: number;
  /** needed by conversions / conversion_rate */
  goal?: Goal;
}

export type KeyValue = string | number | null;
export type MetricValues = Partial<Record<Metric, number | null>>;

export interface Row<M extends string = Metric> {
  /** one entry per breakdown field, plus `bucket` when bucketed */
  key: Record<string, KeyValue>;
  metrics: Partial<Record<M, number | null>>;
}

export interface AggregateResult {
  totals: MetricValues;
  rows: Row[];
  /** number of rows before offset/limit */
  total_rows: number;
}

export interface HitAggregateOptions {
  metrics: HitMetric[];
  breakdown?: HitField[];
  bucket?: Bucket;
  sort?: { by: HitMetric | "key"; desc?: boolean };
  limit?: number;
  offset?: number;
}

export interface HitAggregateResult {
  totals: Partial<Record<HitMetric, number | null>>;
  rows: Row<HitMetric>[];
  total_rows: number;
}

export interface ValueSeriesOptions {
  /** a plain field to group the rows by (none: only the total), e.g. page */
  by?: EventField;
  /** the property whose values name the series, e.g. "metric" */
  series: string;
  /** the property whose numbers are counted, e.g. "value" (values that are not numbers are not counted) */
  value: string;
}

/**
 * How often each number occurs: `values` ascending, `counts[k]` the rows with `values[k]`. Two typed arrays,
 * not [number, count] pairs: an answer from the vitals tables made ~37,000 pairs a warm behavior_performance
 * question at 10M events, most of its time (their allocation and collection).
 */
export interface NumberRuns {
  values: Float64Array;
  counts: Float64Array;
}

/**
 * One group's matching rows and visitors, and per series its rows, its reporters (the people, traffic
 * "human", whose numbers count: counted up to 5, aggregate/value_series.ts `REPORTERS_COUNTED`, so exact
 * below 5 and 5 for 5 or more) and how often each number occurs.
 */
export interface SeriesGroup {
  /** the value of `by` (null in the total) */
  value: KeyValue;
  rows: number;
  visitors: number;
  series: Record<string, { rows: number; reporters: number; counts: NumberRuns }>;
}

export interface ValueSeriesResult {
  /** over every matching row */
  total: SeriesGroup;
  /** per value of `by`, in no particular order */
  groups: SeriesGroup[];
  /** bound on the relative error of the numbers in `counts` (answered from histograms); 0 or absent: exact */
  relative_error?: number;
}
