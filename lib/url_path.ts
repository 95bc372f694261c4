/**
 * One stored form of a URL path, for visitors' pages and crawlers' hits alike, so that a page GPTBot read is the
 * page people viewed however each sender spelled it (RFC 3986 §6.2.2): through the URL parser (characters past
 * ASCII, spaces and control characters percent-encoded, "." and ".." resolved, a missing leading "/" added),
 * escapes in upper case, and escapes of unreserved characters ("%41" for "A") decoded. At most 1,024 characters
 * (spec: a hit's path): longer is cut to 1,023 and "…".
 */
import { truncate } from "./text.ts";

export const MAX_PATH = 1_024;

/** Escapes of unreserved characters: letters, digits, "-", ".", "_" and "~". */
const UNRESERVED = /%(3[0-9]|4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|2D|2E|5F|7E)/g;

export function urlPath(p: string): string {
  let out: string;
  try {
    out = new URL("http://x" + (p.startsWith("/") ? "" : "/") + p).pathname;
  } catch {
    out = "/"; // nothing a string after "http://x/" can hold makes the parser fail; kept for safety
  }
  out = out.replace(/%[0-9a-f]{2}/gi, (e) => e.toUpperCase())
    .replace(UNRESERVED, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
  return out.length <= MAX_PATH ? out : truncate(out, MAX_PATH - 1) + "…";
}

/** A piece of a path to search for, as paths are stored: "über" finds "/%C3%BCber-uns", "a b" finds "/a%20b". */
export function pathPiece(s: string): string {
  try {
    return s.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  } catch {
    return s; // a lone surrogate: searched as given
  }
}

/** A crawler hit's path: its path part as a page's, the query after it as sent (the server SDK keeps allowed ones). */
export function hitPath(p: string): string {
  const cut = p.search(/[?#]/);
  return cut < 0 ? urlPath(p) : urlPath(p.slice(0, cut)) + p.slice(cut);
}

/**
 * A character people can read as itself in a path: a letter, mark, digit, punctuation or symbol, but none that
 * looks like a separator ("／", "∕", "⁄", "⧸", "？", "＃", "％"): shown, it would read as a path of other parts.
 */
const READABLE = /^(?![\u2044\u2215\u29F8\uFF0F\uFF1F\uFF03\uFF05])[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * A stored path as people read it (answer text, the app, reports): "/caf%C3%A9" shows as "/café", "/a%20b" as
 * "/a b". Only escapes whose decoding cannot change what the path means or hide what it is are decoded: a run
 * of escapes that is valid UTF-8 past ASCII and names readable characters (never controls, format characters
 * such as bidi overrides or zero-width joiners, nor unusual spaces), and "%20" inside the path (kept at its
 * end, where a space would be invisible). ASCII escapes stay: "%2F" is a "/" that is not a separator, "%25" a
 * "%" that starts no escape, "%3F" and "%23" no query or fragment. Display only: the stored form, and the form
 * answers' JSON fields carry for scripts to filter with, is `urlPath`'s.
 */
export function shownPath(p: string): string {
  return p.replace(/(%[0-9A-Fa-f]{2})+/g, (run, _e, at: number) => {
    const bytes = run.match(/%[0-9A-Fa-f]{2}/g)!.map((e) => parseInt(e.slice(1), 16));
    let out = "";
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i];
      if (b < 0x80) {
        const last = at + (i + 1) * 3 === p.length;
        out += b === 0x20 && !last ? " " : esc(b);
        i++;
        continue;
      }
      const n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      const c = n > 1 && i + n <= bytes.length ? utf8(bytes.slice(i, i + n)) : null;
      if (c !== null && READABLE.test(c)) {
        out += c;
        i += n;
      } else {
        out += esc(b); // a stray byte: as stored, and the next one is read afresh
        i++;
      }
    }
    return out;
  });
}

const esc = (b: number) => "%" + b.toString(16).toUpperCase().padStart(2, "0");

const strict = new TextDecoder("utf-8", { fatal: true });

/** One character from its UTF-8 bytes, or null when they are not exactly one valid one. */
function utf8(bytes: number[]): string | null {
  try {
    const s = strict.decode(new Uint8Array(bytes));
    return [...s].length === 1 ? s : null;
  } catch {
    return null;
  }
}
