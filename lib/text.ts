/** Cuts a string to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");
/** Stands for bytes that are not UTF-8: a lone surrogate, which no UTF-8 text can hold. */
export const NOT_UTF8 = "\udfff";

/** Length of the UTF-8 sequence starting at `i` if it is well-formed, else 0 (the WHATWG decoder's rules). */
function sequenceAt(b: Uint8Array, i: number): number {
  const lead = b[i];
  if (lead < 0x80) return 1;
  let n: number, lo = 0x80, hi = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) n = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    if (lead === 0xe0) lo = 0xa0;
    if (lead === 0xed) hi = 0x9f; // no surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    if (lead === 0xf0) lo = 0x90;
    if (lead === 0xf4) hi = 0x8f; // nothing past U+10FFFF
  } else return 0;
  for (let k = 1; k < n; k++) {
    const c = b[i + k];
    if (c === undefined || c < lo || c > hi) return 0;
    lo = 0x80, hi = 0xbf;
  }
  return n;
}

/**
 * UTF-8 bytes as text. Bytes that are not UTF-8 become NOT_UTF8 (one for each bad byte) rather than U+FFFD,
 * so that a later well-formedness check refuses them and names the field they were in, instead of storing
 * replacement characters silently. Valid text (the usual case) costs one native decode.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    let out = "", from = 0, i = 0;
    while (i < bytes.length) {
      const n = sequenceAt(bytes, i);
      if (n) {
        i += n;
        continue;
      }
      out += lenient.decode(bytes.subarray(from, i)) + NOT_UTF8;
      from = ++i;
    }
    return out + lenient.decode(bytes.subarray(from));
  }
}

// C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional overrides and isolates
// deno-lint-ignore no-control-regex
const LINE_BREAKERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Whether a string holds a character `oneLine` escapes: ingest refuses them where a name or path is stored. */
export const hasLineBreakers = (s: string): boolean => s.search(LINE_BREAKERS) >= 0;

/**
 * A string for one line of a text (an MCP answer's text, a mail): its control characters written as escapes
 * (`\n`, `\u2028`), so a value sent by anyone holding a site's public key cannot start a line of its own.
 */
export function oneLine(s: string): string {
  return s.replace(
    LINE_BREAKERS,
    (c) =>
      c === "\n"
        ? "\\n"
        : c === "\r"
        ? "\\r"
        : c === "\t"
        ? "\\t"
        : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
