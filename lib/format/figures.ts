/**
 * Figures as the app's pages and the assistant views show them: rates as percentages, seconds as durations,
 * counts with thousands separators, changes signed ("+4.2%", "−11.6%"), and "547 vs 619 (−11.6%)". A figure's
 * own spaces are no-break ones (lib/format/duration.ts), so it never wraps. Text for assistants
 * (lib/answers/render.ts) keeps up to three decimals instead, with the same separators and plain spaces, and
 * shares the durations and times.
 */
import { duration, milliseconds } from "./duration.ts";

export type Unit = "percent" | "fraction" | "points" | "seconds" | "ms" | "count" | "decimal" | "change";

/** How a named figure is measured, from its name (answers name units in their field names). */
export function unitOf(name: string): Unit {
  // answers use `change` for a relative change only (-0.25: 25% down)
  if (name === "change") return "change";
  if (name.endsWith("_percent")) return "percent";
  if (/(_rate|^rate|conversion|^share|_share|conversion_from_first|conversion_from_previous)$/.test(name)) {
    return "fraction";
  }
  // a share now minus the share before (feedback_themes' share_change): percentage points
  if (name === "share_change") return "points";
  if (name.endsWith("_ms")) return "ms";
  if (name.endsWith("_s")) return "seconds";
  if (/per_|average|_avg|cls/.test(name)) return "decimal";
  return "count";
}

const thousands = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });

/** One value as people read it; null is a dash, a text (e.g. "fewer than 5") stays as it is. */
export function formatValue(name: string, v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "number") return String(v);
  switch (unitOf(name)) {
    case "fraction":
      return `${thousands(v * 100, 1)}%`;
    case "points":
      return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${thousands(Math.abs(v) * 100, 1)}\u00a0pts`;
    case "percent":
      return `${thousands(v, 1)}%`;
    case "seconds":
      return duration(v);
    case "ms":
      return milliseconds(v);
    case "change":
      return signedChange(v);
    case "decimal":
      return thousands(v, 2);
    default:
      return thousands(v, Number.isInteger(v) ? 0 : 1);
  }
}

/** A relative change (0.042 = 4.2 %) signed, with a real minus sign: "+4.2%", "−11.6%", "±0%". */
export function signedChange(change: number): string {
  const pct = Math.round(change * 1000) / 10;
  if (pct === 0) return "±0%";
  return `${pct > 0 ? "+" : "−"}${thousands(Math.abs(pct), 1)}%`;
}

/** A difference in the unit of `name`, signed with a real minus sign: "+16", "−1,204", "+7.6 points" for a rate. */
export function signedDifference(name: string, d: number): string {
  const unit = unitOf(name);
  const text = unit === "fraction"
    ? `${thousands(Math.abs(d) * 100, 1)} points`
    : formatValue(name, Math.abs(d));
  return /[1-9]/.test(text) ? `${d > 0 ? "+" : "−"}${text}` : `±${text}`;
}

/** "547 vs 619 (−11.6%)": a figure against the period before, spaced. */
export function versus(name: string, value: unknown, previous: unknown, change?: number | null): string {
  const base = `${formatValue(name, value)} vs ${formatValue(name, previous)}`;
  return change === null || change === undefined ? base : `${base} (${signedChange(change)})`;
}
