/** Calendar dates (year, month, day) and where they start in a timezone. */
import { zone, zonedParts } from "./zone.ts";

export interface LocalDate {
  y: number;
  m: number; // 1-12
  d: number;
}

/**
 * The first instant of a calendar date in tz: local midnight, or, where a DST change skips midnight
 * (America/Santiago, America/Havana), the first instant after the gap.
 */
export function startOfLocalDay(date: LocalDate, tz: string): number {
  return zone(tz).fromWall(Date.UTC(date.y, date.m - 1, date.d));
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
