/**
 * Client-side masking of personal data in any text the SDK sends: emails, card-like numbers and phone
 * numbers are replaced before an event leaves the page. Masking errs on the side of hiding: a long
 * digit run that is neither a card nor a phone number is hidden too.
 */

const EMAIL = /[\w.%+-]+(?:@|%40)[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/gi;
// A run of digits joined by the separators people type in phone and card numbers.
const DIGIT_RUN = /\+?\(?\d(?:[\d().\- ]*\d)?/g;

function maskDigits(run: string): string {
  const digits = run.replace(/\D/g, "").length;
  if (digits >= 13 && digits <= 19 && /^[\d -]+$/.test(run)) return "[card]";
  if (digits >= 9 || (run.startsWith("+") && digits >= 7)) return "[phone]";
  return run;
}

/** Replaces emails, card-like numbers and phone numbers in one string. */
export function maskText(text: string): string {
  return text.replace(EMAIL, "[email]").replace(DIGIT_RUN, maskDigits);
}

/** Masks every string inside a JSON-like value (objects and arrays are copied, not changed in place). */
export function maskDeep<T>(value: T, depth = 0): T {
  if (typeof value === "string") return maskText(value) as T;
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskDeep(v, depth + 1);
  return out as T;
}

/** Masks, collapses whitespace and truncates to `max` characters (masking first, so no half email stays). */
export function cleanText(text: string | null | undefined, max = 100): string | null {
  if (!text) return null;
  const t = maskText(text.replace(/\s+/g, " ").trim());
  if (!t) return null;
  return t.length > max ? t.slice(0, max - 1) + "…" : t;
}
