/** Metrics of the aggregates: which figures each needs counted, and a group's values from its accumulators. */
import type { AggregateOptions, EventField, Filter, Metric, MetricValues } from "../types.ts";
import type { Accumulators } from "./accumulators.ts";
import { REPORTERS_CAP } from "../rollup/reporters.ts";

/** Metrics (and session-level fields) that need the per-session facts of the scope. */
const SESSION_FACTS = new Set<Metric>([
  "bounce_rate",
  "session_duration_s",
  "exits",
  "entries",
  "exit_rate",
  "engaged_visitors",
]);
/** Metrics of a breakdown that count sessions per group. */
export const PER_SESSION = new Set<Metric>([
  "sessions",
  "views_per_session",
  "bounce_rate",
  "session_duration_s",
  "dropped_events",
]);
/** Totals: metrics that need entries and exits, or page-leave sums and rage clicks. */
export const EXITS = new Set<Metric>(["exits", "entries", "exit_rate"]);
export const DETAIL = new Set<Metric>([
  "engagement_time_s",
  "scroll_depth_percent",
  "rage_clicks",
  "reporters",
]);
/** Metrics the lean loop counts (events, pageviews, visitors, conversions). */
export const LEAN = new Set<Metric>([
  "events",
  "pageviews",
  "visitors",
  "viewers",
  "conversions",
  "conversion_rate",
]);

export const isSessionField = (f: EventField | string) => f === "entry_page" || f === "exit_page";

/** Whether any of the questions needs the session facts (a session metric, or an entry/exit page). */
export function needsSessionFacts(list: AggregateOptions[], filters: Filter[] | undefined): boolean {
  return list.some((o) =>
    o.metrics.some((m) => SESSION_FACTS.has(m)) ||
    [...(o.breakdown ?? []), ...(filters ?? []).map((f) => f.field)].some(isSessionField)
  );
}

/** The asked metrics of group g. */
export function metricValues(o: AggregateOptions, a: Accumulators, g: number): MetricValues {
  const r = (x: number, y: number) => (y > 0 ? x / y : null);
  const s = a.sessions[g];
  const all: Record<Metric, () => number | null> = {
    visitors: () => a.visitors[g],
    viewers: () => a.viewers[g],
    engaged_visitors: () => a.engaged[g],
    sessions: () => s,
    pageviews: () => a.pageviews[g],
    events: () => a.events[g],
    views_per_session: () => r(a.pageviews[g], s),
    bounce_rate: () => r(a.bounces[g], s),
    session_duration_s: () => (s > 0 ? a.dur[g] / s / 1000 : null),
    engagement_time_s: () => (a.engN[g] > 0 ? a.engSum[g] / a.engN[g] / 1000 : null),
    scroll_depth_percent: () => r(a.depthSum[g], a.depthN[g]),
    reporters: () => Math.min(REPORTERS_CAP, a.reporters[g]),
    exits: () => a.exits[g],
    entries: () => a.entries[g],
    exit_rate: () => r(a.exits[g], a.pageviews[g]),
    rage_clicks: () => a.rage[g],
    conversions: () => a.convs[g],
    conversion_rate: () => r(a.convs[g], a.visitors[g]),
    dropped_events: () => a.dropped[g],
  };
  return Object.fromEntries(o.metrics.map((m) => [m, all[m]()]));
}
