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
const month = (d: LocalDate) => `${d.y}-${pad(d.m)}`;
const weekday = (d: LocalDate) => new Date(Date.UTC(d.y, d.m - 1, d.d)).getUTCDay(); // 0 Sunday

/** ISO 8601 week key of the week starting on Monday `monday`: "2026-W47". */
export function isoWeekKey(monday: LocalDate): string {
  const thursday = addDays(monday, 3); // the ISO year is the year of the week's Thursday
  const jan1 = Date.UTC(thursday.y, 0, 1);
  const week = Math.floor((Date.UTC(thursday.y, thursday.m - 1, thursday.d) - jan1) / 86_400_000 / 7) + 1;
  return `${thursday.y}-W${pad(week)}`;
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

/** A period key back to its period ("2026-W47", "2026-11"); null when it is not one. */
export function periodOfKey(kind: ReportKind, key: string): ReportPeriod | null {
  if (kind === "monthly") {
    const m = /^(\d{4})-(\d{2})$/.exec(key);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return null;
    return monthOf({ y: Number(m[1]), m: Number(m[2]), d: 1 });
  }
  const w = /^(\d{4})-W(\d{2})$/.exec(key);
  if (!w) return null;
  // The Monday of ISO week 1 is the Monday on or before January 4th.
  const jan4 = parseDate(`${w[1]}-01-04`)!;
  const week1 = addDays(jan4, -((weekday(jan4) + 6) % 7));
  const p = weekOf(addDays(week1, (Number(w[2]) - 1) * 7));
  return p.key === key ? p : null;
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
 * A moment (an ISO time) as the page's other dates read, in UTC: "2026-11-29T20:11:05Z" → "29 Nov 2026, 20:11
 * UTC". Anything else as it is.
 */
export function momentText(iso: string): string {
  return ISO_TIME.test(iso) ? localTime(iso, null, { year: true, space: " " }) : iso;
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
