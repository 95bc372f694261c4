/**
 * The small-group rules of the answer rules (spec rule 5), as functions every tool calls, so they are
 * written once. Counts by page, country, device or source stay exact; the rules bite under a filter on an
 * event property or a saved cohort, on property values, and on times.
 */
export const SMALL_GROUP = 5;
export const FEWER_THAN_5 = "fewer than 5" as const;

export type GuardedCount = number | typeof FEWER_THAN_5;

/** A visitor count under a property or cohort filter: 1 to 4 reads "fewer than 5"; 0 and 5+ stay exact. */
export function guardedVisitors(n: number, filtered: boolean): GuardedCount {
  return filtered && n > 0 && n < SMALL_GROUP ? FEWER_THAN_5 : n;
}

/** An average or median time, withheld (null) when fewer than 5 visitors stand behind it. */
export function guardedTime(seconds: number | null, visitors: number): number | null {
  if (seconds === null || !Number.isFinite(seconds) || visitors < SMALL_GROUP) return null;
  return Math.round(seconds * 10) / 10;
}

/** Property values that may be named: those sent by 5 or more visitors. The rest are only counted. */
export function nameableValues<T extends { visitors: number }>(
  values: T[],
): { named: T[]; withheld: number } {
  const named = values.filter((v) => v.visitors >= SMALL_GROUP);
  return { named, withheld: values.length - named.length };
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// A phone number: optional +, 9 to 15 digits with spaces, dots, dashes or brackets between them,
// not part of a path or a word, and not an ISO date or time.
const PHONE = /(?<![\w/.-])\+?\(?\d[\d\s().-]{7,}\d(?![\w/])/g;
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

// Service keys (public, server, read) and IP addresses: never part of an answer, wherever they are quoted.
const SERVICE_KEY = /svc_(?:pk|sk|rk)_[A-Za-z0-9_-]*/g;
const H = "[0-9A-Fa-f]{1,4}";
const V4_TAIL = String.raw`(?::\d{1,3}(?:\.\d{1,3}){3})?`;
// IPv6: the full 8-group form, or a compressed form with "::" (not "std::vector": no word char around it).
const IPV6 = new RegExp(
  String
    .raw`(?<![\w:])(?:(?:${H}:){7}${H}|(?:${H}(?::${H}){0,6})?::(?:${H}(?::${H}){0,6})?${V4_TAIL})(?![\w:]|\.\d)`,
  "g",
);
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)/g;

export const EMAIL_MASK = "[email]";
export const PHONE_MASK = "[phone]";
export const IP_MASK = "[ip]";
export const KEY_MASK = "[key]";

/** Masks emails, phone numbers, IP addresses and service keys in quoted text. */
export function maskText(text: string): string {
  if (ISO_LIKE.test(text)) return text;
  let out = text.replace(SERVICE_KEY, KEY_MASK);
  out = out.replace(EMAIL, EMAIL_MASK);
  out = out.replace(IPV6, (m) => m.length >= 3 ? IP_MASK : m);
  out = out.replace(IPV4, IP_MASK);
  out = out.replace(PHONE, (m) => {
    const digits = m.replace(/\D/g, "").length;
    if (digits < 9 || digits > 15) return m;
    if (ISO_LIKE.test(m.trim())) return m;
    return PHONE_MASK;
  });
  return out;
}

/** True when text still holds an email, phone number, IP address or key (the checker's view of masking). */
export function hasContactDetails(text: string): boolean {
  return maskText(text) !== text;
}
