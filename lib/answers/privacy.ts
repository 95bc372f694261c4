/**
 * The small-group rules of the answer rules (spec rule 5), as functions every tool calls, so they are
 * written once. Counts by page, country, device or source stay exact; the rules bite under a filter on an
 * event property or a saved cohort, on property values, and on times.
 */
export const SMALL_GROUP = 5;
export const FEWER_THAN_5 = "fewer than 5" as const;

export type GuardedCount = number | typeof FEWER_THAN_5;

/** A group of 1 to 4 (0 is no group; 5 and more stand on their own): what rule 5 protects. */
export const isFew = (n: unknown): n is number => typeof n === "number" && n > 0 && n < SMALL_GROUP;

/** A visitor count under a property or cohort filter: 1 to 4 reads "fewer than 5"; 0 and 5+ stay exact. */
export function guardedVisitors(n: number, filtered: boolean): GuardedCount {
  return filtered && isFew(n) ? FEWER_THAN_5 : n;
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

// Bounded parts and a start that is not inside a longer run: one pass over any text (an unbounded local part
// made a long run of digits and dashes quadratic).
// Letters of any script (jörg.müller@münchen.de, ann@例え.jp, a punycode top-level domain) and the fullwidth ＠.
const EMAIL =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}[@\uff20][\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){0,8}\.(?:xn--[a-z0-9-]{1,59}|\p{L}{2,24})(?![\p{L}\p{N}])/gu;
/**
 * A phone number candidate: optional +, digits with single spaces, dots, dashes or brackets between them,
 * not inside a word or a longer number. Bounded (at most 25 digits), so a scan over any text is linear.
 * Whether a candidate is a phone number is phoneLike's decision.
 */
const SEP = String.raw`(?:[ \u00a0.\-]|\)[ \u00a0]?|[ \u00a0]?\()`;
/**
 * A national number written with a slash after its area code (030/1234567, 0171 / 234 5678), the usual form
 * in German-speaking countries: in running text only (never after a letter, digit or slash, so not in a path,
 * a date or a fraction), 9 to 15 digits.
 */
const NATIONAL_SLASH =
  /(?<![\p{L}\p{N}_/])0\d{1,5}[ \u00a0]?\/[ \u00a0]?\d(?:[ \u00a0\-]?\d){4,12}(?![\p{L}\p{N}_/])/gu;
const PHONE = new RegExp(String.raw`(?<![\p{L}\p{N}_])\+?\(?\d(?:${SEP}?\d){0,24}(?![\p{L}\p{N}_])`, "gu");
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;
/** A date, written year first or day/month first, possibly followed by a time. */
const DATE_START = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})(?:$|[ T\u00a0])/;
/** 1.234.567.890 or 1 234 567: a number with thousands separators (a phone number never reads so). */
const THOUSANDS = /^[1-9]\d{0,2}(?:([ .\u00a0])\d{3})(?:\1\d{3})*$/;
/** A UUID, whose last group may be all digits. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A North American number (area code and exchange start 2-9), with or without the leading 1. */
const NANP = /^1?[2-9]\d{2}[2-9]\d{6}$/;
/** A national number with its trunk 0 (030 1234567, 020 7946 0958, 06 12345678). */
const NATIONAL = /^0[1-9]\d{8,11}$/;

/**
 * Whether a candidate is a phone number. Written with + or 00 it is (9 to 15 digits). In running text any
 * 9 to 15 digits are, as people write them; inside a path, an element id or a key (`/call/4155550134`,
 * `#f-4155550134`) only a number shaped like one (North American, or national with its leading 0), so
 * `/product/1234567890` and other plain ids stay. Dates, times, decimals and thousands are never phones.
 */
function phoneLike(m: string, embedded: boolean, next: string): boolean {
  const digits = m.replace(/\D/g, "");
  if (next === ":" || DATE_START.test(m) || ISO_LIKE.test(m)) return false;
  if (m.startsWith("+")) return digits.length >= 9 && digits.length <= 15;
  if (digits.startsWith("00") && digits.length >= 11 && digits.length <= 17) return true;
  if (digits.length < 9 || digits.length > 15) return false;
  if (!digits.startsWith("0") && THOUSANDS.test(m)) return false;
  if (/^\d+\.\d+$/.test(m)) return false; // a decimal
  if (!embedded) return true;
  return NANP.test(digits) || NATIONAL.test(digits);
}

/**
 * A payment card number: 13 to 19 digits, plain or in groups split by single spaces or dashes, starting as
 * the card networks' numbers do (2 to 6) and passing the Luhn check the networks' numbers all pass; a plain
 * id of that length passes it one time in ten, and is hidden then too (masking errs on the side of hiding).
 */
function cardLike(m: string): boolean {
  if (!/^[2-6]\d*(?:[ \u00a0-]\d+)*$/.test(m)) return false;
  const digits = m.replace(/\D/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Text in running prose starts after a space, a bracket, a quote or punctuation; else it is embedded. */
const TEXT_BEFORE = /[\s([{"'<>,;:!?*|]/;

function maskPhones(text: string): string {
  const uuids: [number, number][] = [];
  for (const u of text.matchAll(UUID)) uuids.push([u.index, u.index + u[0].length]);
  return text.replace(PHONE, (m: string, at: number) => {
    if (uuids.some(([a, b]) => at < b && at + m.length > a)) return m;
    if (cardLike(m)) return CARD_MASK;
    const before = at > 0 ? text[at - 1] : "";
    const embedded = before !== "" && !TEXT_BEFORE.test(before);
    return phoneLike(m, embedded, text[at + m.length] ?? "") ? PHONE_MASK : m;
  });
}

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
export const CARD_MASK = "[card]";
export const IP_MASK = "[ip]";
export const KEY_MASK = "[key]";

/**
 * The placeholders answers write in place of what they mask, with what each stands for. What they stand for
 * is never stored in their place, so a question naming a placeholder matches nothing: toolkit/masked_inputs.ts
 * refuses it (422) instead of answering 0.
 */
export const MASKS: readonly { mask: string; stands_for: string }[] = [
  { mask: EMAIL_MASK, stands_for: "an e-mail address" },
  { mask: PHONE_MASK, stands_for: "a phone number" },
  { mask: CARD_MASK, stands_for: "a payment card number" },
  { mask: IP_MASK, stands_for: "an IP address" },
  { mask: KEY_MASK, stands_for: "a service key" },
];

/**
 * A URL path writes a phone number's separators escaped ("/call/+49%20151%201234%205678", "%2B49…") or as
 * "+" between digits: read with them decoded, or "%20" cuts a number into short runs (and its "20" reads as
 * digits); an address writes its "@" as "%40". Only these escapes: the text is shown decoded only where
 * something in it was masked. Full-width digits (common in Japanese text) are read as digits (NFKC).
 */
const ESCAPED_SEP = /%(20|2B|28|29|2D|2E|40)/gi;
const PLUS_BETWEEN_DIGITS = /(?<=\d)\+(?=\d)/g;
/**
 * Runs of percent escapes, read as UTF-8 where they are: a browser writes a path's letters that way
 * ("/u/jane@m%C3%BCller.de"), and answers show paths decoded, so an address at such a domain is masked too.
 */
const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const utf8Run = (run: string) => {
  try {
    return decodeURIComponent(run);
  } catch {
    return run; // not UTF-8: left as written
  }
};

/** Masks emails, phone numbers, payment card numbers, IP addresses and service keys in quoted text. */
export function maskText(text: string): string {
  const decoded = text.replace(ESCAPED_SEP, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(ESCAPE_RUN, utf8Run)
    .normalize("NFKC")
    .replace(PLUS_BETWEEN_DIGITS, " ");
  if (decoded !== text) {
    const masked = maskDecoded(decoded);
    if (masked !== decoded) return masked;
  }
  return maskDecoded(text);
}

function maskDecoded(text: string): string {
  if (ISO_LIKE.test(text)) return text;
  let out = text.replace(SERVICE_KEY, KEY_MASK);
  out = out.replace(EMAIL, EMAIL_MASK);
  out = out.replace(IPV6, (m) => m.length >= 3 ? IP_MASK : m);
  out = out.replace(IPV4, IP_MASK);
  out = out.replace(NATIONAL_SLASH, (m) => {
    const digits = m.replace(/\D/g, "").length;
    return digits >= 9 && digits <= 15 ? PHONE_MASK : m;
  });
  return maskPhones(out);
}

/** True when text still holds an email, phone or card number, IP address or key (the checker's view of masking). */
export function hasContactDetails(text: string): boolean {
  return maskText(text) !== text;
}
