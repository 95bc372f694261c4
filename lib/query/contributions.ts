/**
 * How much each segment (a value of one field) contributed to a metric's change between two windows, given
 * segments that partition the units (attribution.ts). The contributions of one field add up to the total
 * change, exactly for counts and up to float rounding for rates.
 *
 * A count (visitors, sessions, pageviews): a segment contributes its own difference.
 * A rate (conversion, bounce): the total rate is the units-weighted mean of the segments' rates, and a
 * segment's contribution splits into mix (its share of units moved; it counts for as much as its rate is away
 * from the overall rate) and rate (its own rate moved, weighted by its mean share):
 *   mix = (w1 - w0) * ((r0 + r1) / 2 - (R0 + R1) / 2),   rate = (w0 + w1) / 2 * (r1 - r0).
 * Over all segments the mix terms add to Σ (w1 - w0)(r0 + r1) / 2 (the shares' changes sum to 0) and with the
 * rate terms to Σ (w1 r1 - w0 r0) = R1 - R0. A segment with no units in one window takes its other window's
 * rate there, so it contributes by mix alone.
 */

/** One window's figures of a segment or of the whole: units, and the count the metric counts. */
export interface Side {
  units: number;
  count: number;
}

export interface Contribution {
  now: Side;
  before: Side;
  /** the segment's own metric in each window: the count, or count / units (null without units) */
  value: number | null;
  previous: number | null;
  /** its part of the total change (a count, or a rate difference) */
  contribution: number;
  /** for rates: the part due to its share of units, and the part due to its own rate */
  mix: number | null;
  rate: number | null;
}

export type MetricKind = "count" | "rate";

const ratio = (s: Side) => (s.units > 0 ? s.count / s.units : null);

export function metricOf(kind: MetricKind, s: Side): number | null {
  return kind === "count" ? s.count : ratio(s);
}

/** The contribution of each segment; null for rates when either window has no units at all. */
export function contributions(
  kind: MetricKind,
  total: { now: Side; before: Side },
  segments: { now: Side; before: Side }[],
): Contribution[] | null {
  if (kind === "count") {
    return segments.map((s) => ({
      ...s,
      value: s.now.count,
      previous: s.before.count,
      contribution: s.now.count - s.before.count,
      mix: null,
      rate: null,
    }));
  }
  const R1 = ratio(total.now), R0 = ratio(total.before);
  if (R1 === null || R0 === null) return null;
  const mean = (R0 + R1) / 2;
  return segments.map((s) => {
    const r1 = ratio(s.now), r0 = ratio(s.before);
    const a = r0 ?? r1 ?? 0, b = r1 ?? r0 ?? 0;
    const w1 = s.now.units / total.now.units, w0 = s.before.units / total.before.units;
    const mix = (w1 - w0) * ((a + b) / 2 - mean);
    const rate = ((w0 + w1) / 2) * (b - a);
    return { ...s, value: r1, previous: r0, contribution: mix + rate, mix, rate };
  });
}

/** Figures of several segments together (the rest after the top ones). */
export function sumSides(list: { now: Side; before: Side }[]): { now: Side; before: Side } {
  const add = (x: Side, y: Side) => ({ units: x.units + y.units, count: x.count + y.count });
  return list.reduce((acc, s) => ({ now: add(acc.now, s.now), before: add(acc.before, s.before) }), {
    now: { units: 0, count: 0 },
    before: { units: 0, count: 0 },
  });
}
