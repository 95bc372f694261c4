/**
 * Which period a report covers. A weekly report covers Monday to Sunday of the week before, in the
 * organization's timezone (due from Monday 00:00 local); a monthly report the calendar month before. The
 * period is written as the tools take it, so every finding's call can be run again as it stands.
 */
import { addDays, addMonths, formatDate, type LocalDate, localDateOf, parseDate } from "../time/dates.ts";
import type { ReportKind } from "./types.ts";
import { ISO_TIME, localTime } from "../format/times.ts";
import { periodText } from "../format/periods.ts";

/** Periods in words live with the other words (lib/format/); the report's modules read them here too. */
export { periodText };

export interface ReportPeriod {
  kind: ReportKind;
  key: string;
  /** As tools take it: "2026-11-16..2026-11-22" or "2026-11". */
  period: string;
  previous: string;
  /** First and last local day. */
  from: string;
  to: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
const year = (y: number) => String(y).padStart(4, "0");
const month = (d: LocalDate) => `${year(d.y)}-${pad(d.m)}`;
const weekday = (d: LocalDate) => new Date(Date.UTC(d.y, d.m - 1, d.d)).getUTCDay(); // 0 Sunday

/** ISO 8601 week key of the week starting on Monday `monday`: "2026-W47". */
export function isoWeekKey(monday: LocalDate): string {
  const thursday = addDays(monday, 3); // the ISO year is the year of the week's Thursday
  const jan1 = Date.UTC(thursday.y, 0, 1);
  const week = Math.floor((Date.UTC(thursday.y, thursday.m - 1, thursday.d) - jan1) / 86_400_000 / 7) + 1;
  return `${year(thursday.y)}-W${pad(week)}`;
}

export function weekOf(monday: LocalDate): ReportPeriod {
  const sunday = addDays(monday, 6);
  const before = addDays(monday, -7);
  return {
    kind: "weekly",
    key: isoWeekKey(monday),
    period: `${formatDate(monday)}..${formatDate(sunday)}`,
    previous: `${formatDate(before)}..${formatDate(addDays(before, 6))}`,
    from: formatDate(monday),
    to: formatDate(sunday),
  };
}

export function monthOf(first: LocalDate): ReportPeriod {
  const last = addDays(addMonths(first, 1), -1);
  return {
    kind: "monthly",
    key: month(first),
    period: month(first),
    previous: month(addMonths(first, -1)),
    from: formatDate(first),
    to: formatDate(last),
  };
}

/** The last closed period of a kind at `now` in `tz`: the week before this one, the month before this one. */
export function lastClosedPeriod(kind: ReportKind, now: number, tz: string): ReportPeriod {
  const today = localDateOf(now, tz);
  if (kind === "monthly") return monthOf(addMonths({ y: today.y, m: today.m, d: 1 }, -1));
  const thisMonday = addDays(today, -((weekday(today) + 6) % 7));
  return weekOf(addDays(thisMonday, -7));
}

/**
 * A period key back to its period ("2026-W47", "2026-11"); null when it is not one, or when a day of it or of
 * the period before is not a day `parseDate` reads back: JavaScript's dates take the years 0 to 99 as 1900 to
 * 1999, so "0000-W01" had no January 4th (read as null, a TypeError) and "0001-12" ended in 1901.
 */
export function periodOfKey(kind: ReportKind, key: string): ReportPeriod | null {
  const p = kind === "monthly" ? monthOfKey(key) : weekOfKey(key);
  if (!p || p.key !== key) return null;
  const [before] = p.previous.split("..");
  const days = [p.from, p.to, kind === "monthly" ? `${before}-01` : before];
  return days.every((d) => parseDate(d) !== null) ? p : null;
}

function monthOfKey(key: string): ReportPeriod | null {
  const m = /^(\d{4})-(\d{2})$/.exec(key);
  const first = m ? parseDate(`${m[1]}-${m[2]}-01`) : null; // null for month 00 or 13, or a year before 100
  return first ? monthOf(first) : null;
}

function weekOfKey(key: string): ReportPeriod | null {
  const w = /^(\d{4})-W(\d{2})$/.exec(key);
  // The Monday of ISO week 1 is the Monday on or before January 4th.
  const jan4 = w ? parseDate(`${w[1]}-01-04`) : null;
  if (!w || !jan4) return null;
  const week1 = addDays(jan4, -((weekday(jan4) + 6) % 7));
  return weekOf(addDays(week1, (Number(w[2]) - 1) * 7));
}

/** The closed periods of a kind, newest first: the last `n` weeks or months before the current one. */
export function closedPeriods(kind: ReportKind, now: number, tz: string, n: number): ReportPeriod[] {
  const out: ReportPeriod[] = [];
  let p = lastClosedPeriod(kind, now, tz);
  for (let i = 0; i < n; i++) {
    out.push(p);
    const first = parseDate(p.from)!;
    p = kind === "monthly" ? monthOf(addMonths(first, -1)) : weekOf(addDays(first, -7));
  }
  return out;
}

/**
 * What a report covers as its title reads: "Week of 16–22 Nov 2026", "October 2026". The key ("2026-W47",
 * "2026-10") stays in ids and URLs only.
 */
export function periodTitle(kind: ReportKind, period: string): string {
  return kind === "weekly" ? `Week of ${periodText(period)}` : periodText(period);
}

/**
 * A moment (an ISO time) as the page's other dates read, in `timeZone` and naming it: "2026-11-29T21:56:05Z" →
 * "29 Nov 2026, 22:56 (Europe/Berlin)"; in UTC, or without a zone (or with one that is none), "29 Nov 2026,
 * 21:56 UTC". Anything else as it is.
 */
export function momentText(iso: string, timeZone: string | null = null): string {
  if (!ISO_TIME.test(iso)) return iso;
  const zone = timeZone && timeZone !== "UTC" && isTimeZone(timeZone) ? timeZone : null;
  const text = localTime(iso, zone, { year: true, space: " " });
  return zone ? `${text} (${zone})` : text;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A report's headline as people read it. Reports made before headlines named the dates start with the week
 * or month code ("Week 2026-W47: …", "Month 2026-10: …"): read with the dates instead. Stored reports never
 * change, so this is done where they are shown.
 */
export function headlineText(r: { headline: string; kind: ReportKind; period: string }): string {
  return r.headline.replace(
    /^(?:Week \d{4}-W\d{2}|Month \d{4}-\d{2}): /,
    `${periodTitle(r.kind, r.period)}: `,
  );
}
