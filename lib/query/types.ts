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

/** One event inside a session sequence (no identifiers). */
export interface Step {
  t: number;
  event_type: string;
  page: string;
  element: string | null;
}

/**
 * One session in scope, its events ordered by receive time, device time, sequence number.
 * `visitor` and `session` are opaque per-answer numbers for grouping, never shown to users.
 */
export interface SessionSeq {
  visitor: number;
  session: number;
  start: number;
  end: number;
  source: string;
  channel: string;
  country: string | null;
  device_type: string;
  steps: Step[];
}

export interface SessionsOptions {
  /** sessions come newest first; default: all */
  limit?: number;
  /** include only sessions with at least one event matching scope.filters (default true when filters exist) */
  matchFilters?: boolean;
}

/** A funnel or path step: an event type and conditions on it, e.g. a pageview of /pricing. */
export interface StepDef {
  event_type: string;
  filters?: Filter[];
}

export interface FunnelOptions {
  steps: StepDef[];
  /** "visitor" (default): steps may span the visitor's sessions in scope; "session": inside one session */
  by?: "visitor" | "session";
  /** the whole funnel must complete within this many ms of step 1; default: no limit */
  window_ms?: number;
  /**
   * split the funnel by a field's value at the row where the unit's counted attempt started (its step 1):
   * the `top` values with the most units at step 1, then one group of the rest (`other`)
   */
  split?: { field: EventField; top: number };
}

export interface FunnelResult {
  /** what was counted: visitors (by visitor) or sessions (by session) */
  unit: "visitor" | "session";
  steps: FunnelStep[];
  /** with `split`: the top values by step-1 count (ties by value), then the rest when there is any */
  splits?: FunnelSplit[];
  /** with `split`: how many distinct values reached step 1 */
  split_values?: number;
}

export interface FunnelSplit {
  value: string | null;
  /** true for the group of every value after the top ones (`value` is then null) */
  other: boolean;
  steps: FunnelStep[];
}

/**
 * A unit's counted attempt is its furthest-reaching one (the earliest start among equals); its steps are
 * matched greedily, each at the first matching row after the previous step's.
 */
export interface FunnelStep {
  index: number; // 1-based
  count: number; // units that reached this step in order
  conversion_from_start: number | null; // count / step 1 count
  conversion_from_previous: number | null;
  dropped: number; // previous count - count
  /**
   * median ms from the previous step's row to this step's, over the units that reached it (the mean of the
   * two middle values for an even count); null for step 1 and when none reached it
   */
  median_ms_from_previous: number | null;
}

export interface PathsOptions {
  /** the anchor: a pageview of a page, or any event */
  anchor: StepDef;
  direction: "after" | "before";
  /** how many steps to follow (1-5, default 3) */
  depth?: number;
  /**
   * what a step is: the page of a pageview (default, pageviews only), the event type of any event, or
   * "page_or_event": a pageview named by its page and a custom event by its name (other events whose name
   * starts with "$" are left out)
   */
  step?: "page" | "event" | "page_or_event";
  /** rows and sequences kept, most common first (default 25) */
  limit?: number;
  /** what "most common" counts: sessions (default) or distinct visitors; ties by the other, then value */
  rank?: "sessions" | "visitors";
}

export interface PathCount {
  sessions: number;
  /** distinct visitors with such a session */
  visitors: number;
}

export interface PathsResult {
  /** sessions that reached the anchor */
  sessions: number;
  /** distinct (human) visitors with such a session */
  visitors: number;
  /** per depth (1 = the step right after/before the anchor): how many sessions went where; "(end)" ends the visit */
  steps: { depth: number; rows: ({ value: string } & PathCount)[]; total_rows: number }[];
  /** the most common full sequences up to depth */
  sequences: ({ steps: string[] } & PathCount)[];
  /** distinct sequences before the limit */
  total_sequences: number;
}

export interface RetentionOptions {
  period: "day" | "week" | "month";
  /** how many periods after the cohort's own to report; default up to the end of scope */
  periods?: number;
  /** cohorts by the first time a visitor did this in scope; default: their first event in scope */
  cohort?: StepDef;
  /**
   * what counts as returning: doing this, at or after the moment the visitor entered the cohort; default
   * any event (so period 0 holds the whole cohort)
   */
  returning?: StepDef;
}

export interface RetentionResult {
  /**
   * cohort = the period a visitor entered it; counts[i] = its visitors returning i periods later (period 0:
   * the cohort's own period, from the moment they entered)
   */
  cohorts: { cohort: string; visitors: number; counts: number[] }[];
}

export interface AttributionOptions {
  /** fields whose values split the units (not entry_page / exit_page: a unit's first event gives its page) */
  fields: EventField[];
  /** what is counted once: a visitor (default) or a session */
  unit: "visitor" | "session";
  /** units that did this event in scope count as converted */
  goal?: Goal;
  /**
   * also count distinct visitors: of the whole scope and, per value, behind its units and behind its
   * pageviews (what the small-group rule needs; a visitor's sessions may fall under several values)
   */
  visitors?: boolean;
}

/** Figures of one value of a field (or of the whole scope). */
export interface AttributionRow {
  value: string | null;
  /** units whose first event in scope had this value: the rows of one field add up to the total */
  units: number;
  /** pageviews with this value (each under its own value) */
  pageviews: number;
  /** units that are sessions with at most one pageview in scope (unit session only; else 0) */
  bounced: number;
  /** units that did the goal event in scope */
  converted: number;
  /** with `visitors`: distinct visitors of the units placed under this value (unit visitor: the units) */
  visitors?: number;
  /** with `visitors`: distinct visitors with a pageview counted under this value */
  viewers?: number;
}

export interface AttributionResult {
  units: number;
  /** with `visitors`: distinct visitors in scope */
  visitors?: number;
  pageviews: number;
  bounced: number;
  converted: number;
  /** per field: its values, in no particular order */
  by: Record<string, AttributionRow[]>;
}

export interface ValueSeriesOptions {
  /** a plain field to group the rows by (none: only the total), e.g. page */
  by?: EventField;
  /** the property whose values name the series, e.g. "metric" */
  series: string;
  /** the property whose numbers are counted, e.g. "value" (values that are not numbers are not counted) */
  value: string;
}

/** [number, rows with it], ascending by number. */
export type NumberRuns = [number, number][];

/** One group's matching rows and visitors, and per series its rows and how often each number occurs. */
export interface SeriesGroup {
  /** the value of `by` (null in the total) */
  value: KeyValue;
  rows: number;
  visitors: number;
  series: Record<string, { rows: number; counts: NumberRuns }>;
}

export interface ValueSeriesResult {
  /** over every matching row */
  total: SeriesGroup;
  /** per value of `by`, in no particular order */
  groups: SeriesGroup[];
}

/** The questions the read engine answers (lib/query/engine.ts implements it; open one with api.ts). */
export interface Engine {
  /** Metrics over web events in scope, optionally broken down by fields and/or a time bucket. */
  aggregate(scope: Scope, opts: AggregateOptions): Promise<AggregateResult>;
  /** Several aggregates over one scope in one pass over the data (an overview asks for ~5). */
  aggregateMany(scope: Scope, opts: AggregateOptions[]): Promise<AggregateResult[]>;
  /**
   * How often each number of a property occurs among the matching rows, split into series by another
   * property, per value of a field and over all (exact percentiles, e.g. web vitals per page and metric).
   */
  valueSeries(scope: Scope, opts: ValueSeriesOptions): Promise<ValueSeriesResult>;
  /** Metrics over crawler hits (placed at their corrected timestamp), verification outcome joined. */
  hitsAggregate(scope: HitScope, opts: HitAggregateOptions): Promise<HitAggregateResult>;
  /** Ordered per-session sequences, newest session first (`limit` keeps the newest). */
  sessions(scope: Scope, opts?: SessionsOptions): Promise<SessionSeq[]>;
  /** Conversion through ordered steps (2-8). */
  funnel(scope: Scope, opts: FunnelOptions): Promise<FunnelResult>;
  /** Where sessions go after (or came from before) an anchor page or event. */
  paths(scope: Scope, opts: PathsOptions): Promise<PathsResult>;
  /** Return of visitors by day, week or month, cohorts by first activity in scope. */
  retention(scope: Scope, opts: RetentionOptions): Promise<RetentionResult>;
  /**
   * Units (visitors or sessions) counted once each under the values of their first event in scope, and
   * pageviews under their own: per field, counts that add up to the total (explaining a change).
   */
  attribution(scope: Scope, opts: AttributionOptions): Promise<AttributionResult>;
  /** Property names seen on events in scope (optionally of one event type) with event and visitor counts. */
  propertyKeys(
    scope: Scope,
    eventType?: string,
  ): Promise<{ key: string; events: number; visitors: number }[]>;
  /**
   * How many visitors of the scope (human events in its period and touchpoint, its filters ignored) are in
   * the cohort: the same exact set a question with `scope.cohort` counts.
   */
  cohortSize(scope: Scope, cohort: CohortExpr): Promise<number>;
}
