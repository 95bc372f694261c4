/**
 * The ranges of the capture layer's numeric properties (docs/events.md): the one place that says what a
 * scroll depth, an engagement time or a Web Vitals value may be. Ingest refuses an event whose value is out
 * of its range (lib/schemas/events.ts, 422 naming the field); the readers count a stored value only inside
 * it (lib/query/columns/views.ts, lib/query/vitals/build.ts), so an event stored before the check cannot
 * make a negative time or a depth past 100%.
 */

export interface Range {
  min: number;
  max: number;
  /** what the message says, e.g. "0 and 100" */
  text: string;
}

const HOUR_MS = 3_600_000;
const VITAL_MS: Range = { min: 0, max: 10 * 60_000, text: "0 and 600000 (10 minutes in ms)" };

/** Properties of a `$pageleave` event (any event that carries them is read the same way). */
export const PROPERTY_RANGES: Readonly<Record<string, Range>> = {
  depth_percent: { min: 0, max: 100, text: "0 and 100" },
  engagement_time_ms: { min: 0, max: 24 * HOUR_MS, text: "0 and 86400000 (24 hours in ms)" },
};

/** `properties.value` of a `$web_vitals` event, by `properties.metric`. */
export const VITAL_RANGES: Readonly<Record<string, Range>> = {
  LCP: VITAL_MS,
  INP: VITAL_MS,
  FCP: VITAL_MS,
  TTFB: VITAL_MS,
  CLS: { min: 0, max: 100, text: "0 and 100" },
};

export const VITALS_EVENT = "$web_vitals";

export const inRange = (r: Range, x: number) => x >= r.min && x <= r.max;

/** The range of the number property `key` of an event of `eventType` with `metric`, if it has one. */
export function rangeOf(eventType: string, key: string, metric: unknown): Range | undefined {
  if (Object.hasOwn(PROPERTY_RANGES, key)) return PROPERTY_RANGES[key];
  if (key === "value" && eventType === VITALS_EVENT && typeof metric === "string") {
    return Object.hasOwn(VITAL_RANGES, metric) ? VITAL_RANGES[metric] : undefined;
  }
  return undefined;
}

/**
 * The first out-of-range capture property of an event: its key and message, or null. Only numbers are
 * judged (a string or an object under these names is free-form and read as no number).
 */
export function rangeIssue(
  eventType: string,
  properties: Record<string, unknown>,
): { key: string; message: string } | null {
  for (const key of [...Object.keys(PROPERTY_RANGES), "value"]) {
    const x = properties[key];
    if (typeof x !== "number") continue;
    const r = rangeOf(eventType, key, properties.metric);
    if (r && !inRange(r, x)) return { key, message: `must be between ${r.text}` };
  }
  return null;
}
