/**
 * What the service refuses in an event, checked before an event is queued: the service answers a whole batch
 * with a 422 for one such event, and the last batch of a page goes by sendBeacon, which cannot read the answer,
 * so the good events beside it would be lost. Kept equal to lib/schemas (tests/sdk/web/queue_service_test.ts
 * sends what passes here to the service).
 */
import type { Tally } from "./mask.ts";

/** Keys and strings in one event's properties (lib/schemas/json_limits.ts FREE_FORM_LIMITS). */
export const MAX_ITEMS = 1000;
/** Characters of one property name. */
export const MAX_KEY = 200;
/** Properties and fingerprint as JSON: two-byte characters stay under the service's 65,000 stored bytes. */
export const MAX_CHARS = 30_000;

// control characters, line and paragraph separators, bidi overrides (lib/text.ts LINE_BREAKERS)
// deno-lint-ignore no-control-regex
const BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The first `n` UTF-16 units of a text, never half a surrogate pair (the service refuses a lone one). */
export function cut(s: string, n: number): string {
  const c = s.charCodeAt(n - 1);
  return s.length <= n ? s : s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

/** An event name as the service takes it: one line, at most 120 characters ("" when nothing is left). */
export const eventName = (name: unknown): string =>
  cut(String(name).replace(BREAKERS, " ").replace(/\s+/g, " ").trim(), 120);

/** Why the service would refuse an event's properties, or null. */
export function overLimits(tally: Tally, json: string): string | null {
  if (tally.keys > MAX_ITEMS || tally.strings > MAX_ITEMS) return `more than ${MAX_ITEMS} keys or strings`;
  if (tally.longestKey > MAX_KEY) return `a property name longer than ${MAX_KEY} characters`;
  return json.length > MAX_CHARS ? `more than ${MAX_CHARS} characters` : null;
}
