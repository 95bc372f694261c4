/**
 * Single entries of a string column's stored dictionary (packed UTF-8 or JSON bytes), made strings one at a
 * time: a reader that takes a few rows of a part need not make the part's whole dictionary strings.
 */
import type { StrCol } from "./columns.ts";

const utf8 = new TextDecoder();
const QUOTE = 34, BACKSLASH = 92, OPEN = 91, CLOSE = 93, COMMA = 44;

/**
 * The string of code `code` (> 0: entry code - 1) of `c`'s stored dictionary, read one at a time; null when
 * the column keeps no stored dictionary bytes or they are not a JSON array of strings.
 */
export function dictEntries(c: StrCol): ((code: number) => string) | null {
  if (c.packed) {
    const { offsets, bytes } = c.packed;
    return (code) => utf8.decode(bytes.subarray(offsets[code - 1], offsets[code]));
  }
  const json = c.dictJson;
  const at = json ? jsonStringBounds(json) : null;
  if (!json || !at) return null;
  return (code) => JSON.parse(utf8.decode(json.subarray(at[2 * code - 2], at[2 * code - 1]))) as string;
}

const space = (b: number) => b === 32 || b === 9 || b === 10 || b === 13;

/**
 * Where each string of a JSON array of strings starts and ends (quotes included: entry k is bytes
 * [out[2k], out[2k + 1])), or null when the bytes are not such an array. A quote or backslash byte is never
 * inside a UTF-8 sequence, so the bytes are walked as they are.
 */
export function jsonStringBounds(json: Uint8Array): Uint32Array | null {
  let out = new Uint32Array(64), n = 0, i = 0;
  const skip = () => {
    while (i < json.length && space(json[i])) i++;
  };
  skip();
  if (json[i++] !== OPEN) return null;
  skip();
  if (json[i] === CLOSE) return out.subarray(0, 0);
  for (;;) {
    skip();
    if (json[i] !== QUOTE) return null;
    const start = i++;
    while (i < json.length && json[i] !== QUOTE) i += json[i] === BACKSLASH ? 2 : 1;
    if (i >= json.length) return null;
    if (n + 2 > out.length) {
      const grown = new Uint32Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    out[n++] = start;
    out[n++] = ++i;
    skip();
    if (json[i] === CLOSE) return out.subarray(0, n);
    if (json[i++] !== COMMA) return null;
  }
}
