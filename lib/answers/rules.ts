/**
 * The answer rules, enforced in one place: every tool's answer passes through `finalizeAnswer` on its way
 * out of both faces (HTTP and MCP). It orders the answer (scope first, notices last), masks emails, phone
 * numbers, IP addresses and service keys in text, and cuts lists to 25 items keeping their total.
 * Identifier fields are kept out by construction, not removed here: no output schema declares one, and the
 * checker (check.ts) proves every answer holds only its schema's fields. Removing keys by name would drop
 * data: a split's values are keys too, and a source may well be called "key" or "ip".
 */
import { maskText } from "./privacy.ts";

export const MAX_ITEMS = 25;
/** A time series is one insight, not a list of individual items: it may hold up to 400 points. */
export const SERIES_FIELDS = new Set(["series"]);
export const MAX_SERIES_POINTS = 400;

/** Field names that would carry a visitor, person, device or address identifier, a key, or a review author:
 * no output schema may declare one (the checker's `schema` rule). */
export const IDENTIFIER_FIELDS = new Set([
  "ip",
  "ip_address",
  "anonymous_id",
  "user_id",
  "session_id",
  "device_id",
  "visitor_id",
  "person_id",
  "distinct_id",
  "event_id",
  "author",
  "author_name",
  "reviewer",
  "api_key",
  "key",
]);

/**
 * Keys whose string values are machine values (dates, names of fields, an app's public store id such as
 * App Store "123456789", which would otherwise read as a phone number), never quoted text.
 */
const NOT_TEXT = new Set([
  "from",
  "to",
  "from_date",
  "to_date",
  "timezone",
  "environment",
  "store_id",
]);

function clean(value: unknown, key: string | null): unknown {
  if (typeof value === "string") return key !== null && NOT_TEXT.has(key) ? value : maskText(value);
  if (Array.isArray(value)) {
    const max = key !== null && SERIES_FIELDS.has(key) ? MAX_SERIES_POINTS : MAX_ITEMS;
    return value.slice(0, max).map((v) => clean(v, null));
  }
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    const obj = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(obj)) {
      // Keys can be quoted text too (a split's values name the fields of `by`).
      out[maskText(k)] = clean(v, k);
      // A list cut here keeps its total beside it.
      if (
        Array.isArray(v) && !SERIES_FIELDS.has(k) && v.length > MAX_ITEMS &&
        typeof obj[`${k}_total`] !== "number"
      ) {
        out[`${k}_total`] = v.length;
      }
    }
    return out;
  }
  return value;
}

export interface Finalizable {
  scope: unknown;
  notices?: string[];
  [field: string]: unknown;
}

/** Applies the rules and puts the extra notices (allowance, freshness) after the tool's own. */
export function finalizeAnswer(answer: Finalizable, extraNotices: string[] = []): Record<string, unknown> {
  const { scope, notices = [], ...rest } = answer;
  const body = clean(rest, null) as Record<string, unknown>;
  const allNotices = [...notices, ...extraNotices].map(maskText);
  return { scope: clean(scope, "scope"), ...body, notices: allNotices };
}
