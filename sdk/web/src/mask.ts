/**
 * Client-side masking of personal data in any text the SDK sends: emails, card-like numbers and phone
 * numbers are replaced before an event leaves the page. Masking errs on the side of hiding: a long
 * digit run that is neither a card nor a phone number is hidden too.
 */

// An address of any script (jörg.müller@münchen.de, ann@例え.jp, a punycode top-level domain, the fullwidth ＠),
// also as a URL writes it (an escaped "@", a domain's letters percent-encoded: m%C3%BCnchen.de). Parts are
// bounded, so a scan over any text stays linear.
const EMAIL =
  /[\p{L}\p{N}\p{M}_.%+-]{1,64}(?:@|%40|＠)(?:[\p{L}\p{N}\p{M}_-]|%[\da-f]{2}){1,63}(?:\.(?:[\p{L}\p{N}\p{M}_-]|%[\da-f]{2}){1,63}){0,8}\.(?:xn--[a-z\d-]+|(?:\p{L}|%[\da-f]{2}){2,63})/giu;
// A run of digits joined by the separators people type in phone and card numbers, also as a URL writes them
// ("+49%20151%201234", "%2B49+151+1234"): escaped, or "+" for a space.
const ESCAPED = /%2[0DE89]/gi;
const DIGIT_RUN = /(?:\+|%2B)?\(?\d(?:(?:[\d().\- +]|%2[0BDE89])*\d)?/gi;

function maskDigits(run: string): string {
  // an escape's own digits ("%20") are no digits of the number
  const plain = run.replace(/%2B/gi, "+").replace(ESCAPED, " ");
  const digits = plain.replace(/\D/g, "").length;
  if (digits >= 13 && digits <= 19 && /^[\d -]+$/.test(plain)) return "[card]";
  if (digits >= 9 || (plain.startsWith("+") && digits >= 7)) return "[phone]";
  return run;
}

/** Replaces emails, card-like numbers and phone numbers in one string. */
export function maskText(text: string): string {
  return text.replace(EMAIL, "[email]").replace(DIGIT_RUN, maskDigits);
}

/** What one event may hold: the service refuses a batch past these (json_limits.ts FREE_FORM_LIMITS). */
export interface Tally {
  keys: number;
  strings: number;
  longestKey: number;
}

/**
 * Masks every string inside a value and makes it safe to send: a copy (the input is not changed) that
 * JSON.stringify never throws on and the service accepts. A bigint becomes its digits, a Date (anything
 * with toJSON) its JSON form, a cycle or anything nested past 30 levels null, functions and symbols are
 * left out, strings are made well-formed. Keys and strings are counted in `tally`.
 */
export function maskDeep<T>(
  value: T,
  tally: Tally = { keys: 0, strings: 0, longestKey: 0 },
  seen: object[] = [],
): T {
  let v: unknown = value;
  if (v && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    try {
      v = (v as { toJSON: () => unknown }).toJSON();
    } catch {
      return null as T;
    }
  }
  if (typeof v === "bigint") v = String(v);
  if (typeof v === "string") {
    tally.strings++;
    return maskText(v.toWellFormed ? v.toWellFormed() : v) as T;
  }
  if (typeof v === "number") return (Number.isFinite(v) ? v : null) as T;
  if (typeof v === "function" || typeof v === "symbol") return undefined as T;
  if (v === null || typeof v !== "object") return v as T;
  if (seen.length >= 30 || seen.includes(v)) return null as T;
  seen.push(v);
  let out: unknown;
  if (Array.isArray(v)) out = v.map((x) => maskDeep(x, tally, seen) ?? null);
  else {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const m = maskDeep(x, tally, seen);
      if (m === undefined || k === "__proto__") continue;
      tally.keys++;
      if (k.length > tally.longestKey) tally.longestKey = k.length;
      o[k.toWellFormed ? k.toWellFormed() : k] = m;
    }
    out = o;
  }
  seen.pop();
  return out as T;
}

/** Masks, collapses whitespace and truncates to `max` characters (masking first, so no half email stays). */
export function cleanText(text: string | null | undefined, max = 100): string | null {
  if (!text) return null;
  const t = maskText(text.replace(/\s+/g, " ").trim());
  if (!t) return null;
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}
