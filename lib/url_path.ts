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
