/** How stored values read as strings in filters and breakdowns. */
import { catalogEntry } from "../../crawl/classify.ts";

/** The catalog category of a crawler or agent token; "unknown" automation has none. */
export const crawlerCategory = (token: string): string | null => catalogEntry(token)?.category ?? null;

/** A property value as filters compare it: strings as they are, objects as JSON, null when absent. */
export const valueString = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : typeof v === "string"
    ? v
    : typeof v === "object"
    ? JSON.stringify(v)
    : String(v);
