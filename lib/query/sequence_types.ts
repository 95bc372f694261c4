/**
 * The result and option shapes of the sequence questions (sessions, funnels, paths, retention, attribution):
 * the rest of the engine's vocabulary is in types.ts, which re-exports these.
 */
import type { EventField, Filter, Goal } from "./types.ts";

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
