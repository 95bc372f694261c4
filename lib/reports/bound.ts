/**
 * A report is stored as one KV value (64 KiB at most). Page paths come from visitors' events and are as long as
 * an event allows, and a report names pages many times (charts, claims, numbers): a few long paths made the
 * weekly report fail every hour. Its stored form shortens each long word (a run without spaces, such as a path
 * or a URL) with "…", so sentences still read; the inputs to reproduce a finding keep longer words.
 */
import type { Report } from "./types.ts";

/** Longest word kept as it is in what a report shows. */
export const MAX_WORD = 120;
/** Longest word kept in a finding's `reproduce` inputs (a path there is an input to run again). */
export const MAX_REPRODUCE_WORD = 1_024;

const shorten = (s: string, max: number) =>
  s.length <= max ? s : s.replace(new RegExp(`[^\\s]{${max + 1},}`, "g"), (w) => w.slice(0, max - 1) + "…");

function bound(value: unknown, max: number): unknown {
  if (typeof value === "string") return shorten(value, max);
  if (Array.isArray(value)) return value.map((v) => bound(v, max));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, bound(v, k === "reproduce" ? MAX_REPRODUCE_WORD : max)]),
    );
  }
  return value;
}

/** The report with every long word shortened (see above); short reports come back equal. */
export const boundReport = (report: Report): Report => bound(report, MAX_WORD) as Report;
