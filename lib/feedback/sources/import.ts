/**
 * Review import for any app: NDJSON (one review a line) or CSV with a header row, in the shapes of common
 * exports: the Google Play Console's monthly reviews CSV (UTF-16 with its long column names), App Store
 * Connect and review-tool exports, and scraper JSON (reviewId/score/content/at). Column names are matched
 * loosely (case, spaces and punctuation ignored). A bad line is rejected with its line number and reason;
 * the good lines are stored.
 */
import type { IncomingReview } from "../types.ts";
import { sha256Hex } from "../../keys/apikeys.ts";

const ALIASES: Record<keyof Omit<IncomingReview, "reply"> | "reply_text" | "reply_at", string[]> = {
  id: ["id", "reviewid", "reviewlink"],
  rating: ["rating", "score", "starrating", "stars", "imrating"],
  title: ["title", "reviewtitle", "subject"],
  text: ["text", "body", "content", "review", "reviewtext", "comment"],
  created_at: [
    "date",
    "createdat",
    "created",
    "at",
    "reviewsubmitmillissinceepoch",
    "reviewsubmitdateandtime",
    "submitted",
    "updated",
  ],
  updated_at: [
    "updatedat",
    "lastmodified",
    "reviewlastupdatemillissinceepoch",
    "reviewlastupdatedateandtime",
  ],
  version: ["version", "appversion", "appversionname", "reviewcreatedversion", "imversion"],
  language: ["language", "reviewerlanguage", "lang", "locale"],
  country: ["country", "territory", "storefront", "region"],
  author: ["author", "username", "reviewer", "nickname", "reviewernickname", "authorname", "user"],
  reply_text: [
    "reply",
    "replycontent",
    "developerreply",
    "developerreplytext",
    "developerresponse",
    "response",
  ],
  reply_at: ["repliedat", "developerreplymillissinceepoch", "developerreplydateandtime", "replydate"],
};

const normKey = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, "");
const FIELD_OF = new Map<string, string>();
for (const [field, names] of Object.entries(ALIASES)) for (const n of names) FIELD_OF.set(n, field);

export interface ImportLineError {
  line: number;
  error: string;
}

export interface ParsedImport {
  reviews: { line: number; review: IncomingReview }[];
  rejected: ImportLineError[];
}

/** Decodes UTF-8 or, with its byte-order mark, UTF-16 (the Play Console's CSVs are UTF-16LE). */
export function decodeImport(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  return new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
}

export function looksLikeCsv(text: string, contentType: string | null): boolean {
  if (contentType?.includes("csv")) return true;
  if (contentType?.includes("ndjson") || contentType?.includes("json")) return false;
  return !text.trimStart().startsWith("{");
}

/**
 * The dates a review may have: not before 2008 (the App Store and Google Play opened that year) and not more
 * than a day after the server's clock (a store's time zone or a clock a little ahead). A date outside them
 * (1e20 ms, year +275760, a negative number) is no review's: stored, it fell in no period any answer reads.
 */
export const FIRST_REVIEW_AT = Date.UTC(2008, 0, 1);
const DAY_MS = 86_400_000;

/** `now`: the server's clock, in milliseconds (a review's date may be at most a day after it). */
export function parseImport(text: string, csv: boolean, now = Date.now()): ParsedImport {
  const out: ParsedImport = { reviews: [], rejected: [] };
  const take = (line: number, row: Record<string, unknown>) => {
    const r = toReview(row, now + DAY_MS);
    if (typeof r === "string") out.rejected.push({ line, error: r });
    else out.reviews.push({ line, review: r });
  };
  if (csv) {
    const rows = csvRecords(text);
    const header = rows.shift();
    if (!header) return out;
    const cols = header.cells.map(normKey);
    for (const row of rows) {
      if (row.cells.length === 1 && row.cells[0].trim() === "") continue;
      if (row.cells.length !== cols.length) {
        out.rejected.push({
          line: row.line,
          error: `${row.cells.length} columns, the header has ${cols.length}`,
        });
        continue;
      }
      take(row.line, Object.fromEntries(cols.map((c, i) => [c, row.cells[i]])));
    }
    return out;
  }
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      out.rejected.push({ line: i + 1, error: "not JSON" });
      return;
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj)) {
      out.rejected.push({ line: i + 1, error: "not a JSON object" });
      return;
    }
    take(i + 1, Object.fromEntries(Object.entries(obj).map(([k, v]) => [normKey(k), v])));
  });
  return out;
}

function field(row: Record<string, unknown>, name: string): unknown {
  for (const [k, v] of Object.entries(row)) {
    if (FIELD_OF.get(k) === name && v !== null && v !== undefined && v !== "") return v;
  }
  return undefined;
}

function time(v: unknown): number | null {
  if (v === undefined) return null;
  if (typeof v === "number") return v > 1e11 ? v : v * 1000;
  const s = String(v).trim();
  if (/^\d{9,13}$/.test(s)) return Number(s) > 1e11 ? Number(s) : Number(s) * 1000;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : NaN;
}

const text = (v: unknown) => (v === undefined ? null : String(v).trim() || null);

/** One row as a review, or the reason it is not one. */
function toReview(row: Record<string, unknown>, latest: number): IncomingReview | string {
  const inRange = (t: number) => t >= FIRST_REVIEW_AT && t <= latest;
  const rating = Number(field(row, "rating"));
  if (!Number.isInteger(rating) || rating < 1 || rating > 5) {
    return field(row, "rating") === undefined ? "rating: missing" : "rating: must be a whole number 1 to 5";
  }
  const created = time(field(row, "created_at"));
  if (created === null) return "date: missing";
  if (Number.isNaN(created)) return "date: not a date (ISO 8601 or milliseconds since 1970)";
  if (!inRange(created)) return "date: out of range";
  const updated = time(field(row, "updated_at"));
  if (Number.isNaN(updated)) return "updated_at: not a date";
  if (updated !== null && !inRange(updated)) return "updated_at: out of range";
  const body = text(field(row, "text")) ?? "";
  const title = text(field(row, "title"));
  if (!body && !title) return "text: missing (a review needs a text or a title)";
  const author = text(field(row, "author"));
  let id = text(field(row, "id"));
  // The Play Console's CSV has a review link, whose reviewId parameter is the review's id; an id that only
  // starts like one ("http-123") is an id as it stands.
  if (id?.startsWith("http") && URL.canParse(id)) id = new URL(id).searchParams.get("reviewId") ?? id;
  // Without an id the review is identified by who wrote what when: the same line imported twice is one review.
  id ??= "imp_" + sha256Hex(JSON.stringify([author, created, title, body])).slice(0, 32);
  if (id.length > 300) return "id: longer than 300 characters";
  const replyText = text(field(row, "reply_text"));
  const replyAt = time(field(row, "reply_at"));
  return {
    id,
    rating,
    title,
    text: body,
    language: text(field(row, "language"))?.split(/[-_]/)[0].toLowerCase() ?? null,
    country: text(field(row, "country"))?.toUpperCase() ?? null,
    version: text(field(row, "version")),
    created_at: created,
    updated_at: updated,
    // a reply's date is only shown: one out of range is unknown, the review still imports
    reply: replyText ? { text: replyText, at: replyAt !== null && inRange(replyAt) ? replyAt : null } : null,
    author,
  };
}

/** RFC 4180 records with the line each starts on (quoted fields may span lines). */
export function csvRecords(s: string): { line: number; cells: string[] }[] {
  const out: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let f = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '"') {
        if (s[i + 1] === '"') {
          f += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === "\n") line++;
        f += c;
      }
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      cells.push(f);
      f = "";
    } else if (c === "\n") {
      cells.push(f);
      out.push({ line: start, cells });
      cells = [];
      f = "";
      line++;
      start = line;
    } else if (c !== "\r") f += c;
  }
  if (f !== "" || cells.length) {
    cells.push(f);
    out.push({ line: start, cells });
  }
  return out;
}
