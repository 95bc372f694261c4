/**
 * How behavior_explain_change reads: its metrics and dimensions, what one unit of each metric is, and the
 * one-line findings and summary it writes from the figures.
 */
export const METRICS = ["visitors", "sessions", "pageviews", "conversion_rate", "bounce_rate"] as const;
export type MetricName = (typeof METRICS)[number];
export const DIMENSIONS = ["channel", "source", "page", "country", "device", "browser"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const OTHER = "(other)";

export const isRate = (m: MetricName) => m === "conversion_rate" || m === "bounce_rate";
/** What one unit is: conversion is a share of visitors, bounce a share of sessions. */
export const UNIT: Record<MetricName, "visitor" | "session"> = {
  visitors: "visitor",
  sessions: "session",
  pageviews: "session",
  conversion_rate: "visitor",
  bounce_rate: "session",
};

/** The figures of the total or of one segment, as the answer gives them. */
export interface Figures {
  value: number | null;
  previous: number | null;
  difference: number | null;
  change: number | null;
}

/** What a finding says of a segment. */
export interface Described {
  name: string;
  value: number | null;
  previous: number | null;
  units: { value: number; previous: number };
  contribution: number;
  contribution_share: number | null;
  effect: "volume" | "mix" | "rate";
}

const NOUN: Record<MetricName, string> = {
  visitors: "visitors",
  sessions: "sessions",
  pageviews: "pageviews",
  conversion_rate: "conversion rate",
  bounce_rate: "bounce rate",
};
const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const signed = (x: number, f: (n: number) => string) => (x > 0 ? `+${f(x)}` : x < 0 ? `-${f(-x)}` : f(0));
const count = (n: number) => n.toLocaleString("en-US");
const points = (x: number) => `${Math.round(x * 1000) / 10} points`;
const fig = (metric: MetricName, v: number | null) =>
  v === null ? "none" : isRate(metric) ? pct(v) : count(v);
const diffText = (metric: MetricName, d: number) => signed(d, isRate(metric) ? points : count);

/** One line per driver: its before and after, its part of the total change, and why (for rates). */
export function describeDriver(
  metric: MetricName,
  dimension: Dimension,
  s: Described,
  totalDiff: number | null,
): string {
  const head = `${dimension} ${s.name}: ${NOUN[metric]} ${fig(metric, s.previous)} → ${fig(metric, s.value)}`;
  const share = s.contribution_share === null ? "" : ` (${pct(s.contribution_share)} of it)`;
  const part = totalDiff === null ? "" : `; ${diffText(metric, s.contribution)} of the total ` +
    `${diffText(metric, totalDiff)}${share}`;
  if (!isRate(metric)) return head + part;
  const units = `${count(s.units.previous)} → ${count(s.units.value)} ${UNIT[metric]}s`;
  const why = s.effect === "mix"
    ? `mostly because its share of ${UNIT[metric]}s moved (${units})`
    : `mostly because its own rate moved (on ${units})`;
  return `${head}${part}, ${why}`;
}

export function summaryLine(
  metric: MetricName,
  total: Figures,
  first: (Described & { dimension: Dimension }) | null,
  /** a larger part moving against the total, named as what offset it (with a flat total: the largest fall,
   * beside `first`, the largest rise) */
  against: (Described & { dimension: Dimension }) | null = null,
): string {
  if (total.difference === null) return `${NOUN[metric]}: no comparison (no units in one of the periods)`;
  if (total.difference === 0) {
    // a flat total may hide parts that moved against each other: named when they did
    const under = first && against
      ? `, though ${first.dimension} ${first.name} (${diffText(metric, first.contribution)}) and ` +
        `${against.dimension} ${against.name} (${
          diffText(metric, against.contribution)
        }) moved against each other`
      : "";
    return `${NOUN[metric]} did not change: ${fig(metric, total.value)} in both periods${under}`;
  }
  const verb = total.difference > 0 ? "rose" : "fell";
  const rel = total.change === null ? "" : `, ${signed(total.change, pct)}`;
  const main =
    (first
      ? `; the largest part: ${first.dimension} ${first.name} (${diffText(metric, first.contribution)})`
      : "") +
    (against
      ? `; partly offset by ${against.dimension} ${against.name} (${diffText(metric, against.contribution)})`
      : "");
  return `${NOUN[metric]} ${verb} from ${fig(metric, total.previous)} to ${fig(metric, total.value)} ` +
    `(${diffText(metric, total.difference)}${rel})${main}`;
}
