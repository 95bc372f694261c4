/**
 * How many bytes KV stores for a value. KV refuses a value over 65,536 bytes of V8 serialization, and a
 * commit over 800 KiB; `JSON.stringify(x).length` counts UTF-16 characters, but V8 keeps a string with any
 * character past U+00FF at two bytes a character, and a double at 9 bytes. `node:v8` `serialize` gives
 * exactly KV's count (tests/lib/store/stored_size_test.ts) but costs ~30 µs for a 0.7 KB event, so small
 * values get a cheap upper bound instead.
 */
import { serialize } from "node:v8";

/** KV's limit on one value, in bytes. */
export const KV_VALUE_LIMIT = 65_536;

/** Below this bound the estimate is used as is: even if it were 20% low, the value is far under the limit. */
const EXACT_ABOVE = 8_192;

/**
 * An upper bound of the value's stored size for small values, and the exact size above EXACT_ABOVE. No JSON
 * character takes more than 2.5 bytes in V8's form: a two-byte character 2, "0.1," 9 for 4, "[]" 5 for 2.
 */
export function storedBytes(value: unknown): number {
  const bound = Math.ceil(JSON.stringify(value).length * 2.5) + 64;
  return bound <= EXACT_ABOVE ? bound : serialize(value).byteLength;
}
