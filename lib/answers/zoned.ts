/** Calendar arithmetic in an IANA timezone, with Intl only (no timezone database of our own). */
import { isValidTimezone, startOfLocalDay as engineStartOfLocalDay } from "../query/time.ts";

export interface LocalDate {
  y: number;
  m: number; // 1-12
  d: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "short",
    });
    formatters.set(tz, f);
  }
  return f;
}

export { isValidTimezone };

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Wall-clock fields of an instant in tz. `weekday` is 0 (Sunday) to 6. */
export function zonedParts(ms: number, tz: string) {
  const p: Record<string, string> = {};
  for (const part of formatter(tz).formatToParts(new Date(ms))) p[part.type] = part.value;
  return {
    y: Number(p.year),
    m: Number(p.month),
    d: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
    weekday: WEEKDAYS.indexOf(p.weekday),
  };
}

/** Offset of tz from UTC at the instant, in ms (positive east of Greenwich). */
export function tzOffsetMs(ms: number, tz: string): number {
  const z = zonedParts(ms, tz);
  const asUtc = Date.UTC(z.y, z.m - 1, z.d, z.hour, z.minute, z.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/**
 * The first instant of a calendar date in tz: local midnight, or, where a DST change skips midnight
 * (America/Santiago, America/Havana), the first instant after the gap. One implementation, the engine's.
 */
export function startOfLocalDay(date: LocalDate, tz: string): number {
  return engineStartOfLocalDay(date.y, date.m, date.d, tz);
}

export function localDateOf(ms: number, tz: string): LocalDate {
  const z = zonedParts(ms, tz);
  return { y: z.y, m: z.m, d: z.d };
}

/** Adds days to a calendar date (no timezone involved). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const t = new Date(Date.UTC(date.y, date.m - 1, date.d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

export function addMonths(date: LocalDate, months: number): LocalDate {
  const t = new Date(Date.UTC(date.y, date.m - 1 + months, 1));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: 1 };
}

export const formatDate = (d: LocalDate) =>
  `${String(d.y).padStart(4, "0")}-${String(d.m).padStart(2, "0")}-${String(d.d).padStart(2, "0")}`;

export function parseDate(s: string): LocalDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const date = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
  return formatDate(addDays(date, 0)) === s ? date : null; // rejects 2026-02-30
}

export const compareDates = (a: LocalDate, b: LocalDate) => (a.y - b.y) || (a.m - b.m) || (a.d - b.d);
