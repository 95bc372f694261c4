/**
 * Periods named in questions, resolved to instants in the organization's timezone and cut to the plan's
 * history limit. Choices (documented in docs/read-api.md):
 * - `today` and the `last_N_days` periods include today so far: last_7_days is today and the 6 days before.
 * - `this_month` and a `YYYY-MM` of the current month end now; a closed range ends at the end of its last day.
 * - The previous period, for comparisons, is the window of the same length right before (a calendar month
 *   compares with the calendar month before).
 */
import { invalid } from "../errors.ts";
import {
  addDays,
  addMonths,
  compareDates,
  formatDate,
  type LocalDate,
  localDateOf,
  parseDate,
  startOfLocalDay,
} from "../time/dates.ts";

export const PERIOD_NAMES = [
  "today",
  "yesterday",
  "last_7_days",
  "last_28_days",
  "last_30_days",
  "last_90_days",
  "this_month",
  "last_month",
] as const;

export const PERIOD_PATTERN =
  /^(today|yesterday|last_(7|28|30|90)_days|this_month|last_month|\d{4}-\d{2}|\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2})$/;

export const PERIOD_HELP =
  "one of today, yesterday, last_7_days, last_28_days, last_30_days, last_90_days, this_month, last_month, " +
  "YYYY-MM, or YYYY-MM-DD..YYYY-MM-DD";

export interface Window {
  from: number; // ms, inclusive
  to: number; // ms, exclusive
}

export interface ResolvedPeriod extends Window {
  name: string;
  timezone: string;
  /** First and last local calendar day covered. */
  from_date: string;
  to_date: string;
  /** The window just before, for comparisons; null when it lies wholly before the history limit. */
  previous: Window | null;
  /** True when the plan's history limit moved the start later than asked. */
  cut_by_history: boolean;
  history_days: number;
  /** What the history limit changed (the period cut, no comparison), for the answer's notices. */
  notices: string[];
}

interface Span {
  first: LocalDate; // first local day
  endMs: number; // exclusive end instant
  previousFirst: LocalDate;
}

function span(name: string, today: LocalDate, now: number, tz: string): Span | null {
  const lastN = /^last_(\d+)_days$/.exec(name);
  if (name === "today") return { first: today, endMs: now + 1, previousFirst: addDays(today, -1) };
  if (name === "yesterday") {
    const y = addDays(today, -1);
    return { first: y, endMs: startOfLocalDay(today, tz), previousFirst: addDays(y, -1) };
  }
  if (lastN) {
    const n = Number(lastN[1]);
    const first = addDays(today, -(n - 1));
    return { first, endMs: now + 1, previousFirst: addDays(first, -n) };
  }
  const monthStart = { y: today.y, m: today.m, d: 1 };
  if (name === "this_month") {
    return { first: monthStart, endMs: now + 1, previousFirst: addMonths(monthStart, -1) };
  }
  if (name === "last_month") {
    const first = addMonths(monthStart, -1);
    return { first, endMs: startOfLocalDay(monthStart, tz), previousFirst: addMonths(first, -1) };
  }
  const month = /^(\d{4})-(\d{2})$/.exec(name);
  if (month) {
    const first = { y: Number(month[1]), m: Number(month[2]), d: 1 };
    if (first.m < 1 || first.m > 12) return null;
    const end = Math.min(startOfLocalDay(addMonths(first, 1), tz), now + 1);
    return { first, endMs: end, previousFirst: addMonths(first, -1) };
  }
  const range = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(name);
  if (range) {
    const a = parseDate(range[1]);
    const b = parseDate(range[2]);
    if (!a || !b) return null;
    if (compareDates(a, b) > 0) {
      throw invalid(
        `period "${name}": from is after to; write the earlier date first (${range[2]}..${range[1]})`,
      );
    }
    // A range running past today is cut to today; the previous window has the length of what is left.
    const last = compareDates(b, today) > 0 ? today : b;
    const days =
      Math.round((Date.UTC(last.y, last.m - 1, last.d) - Date.UTC(a.y, a.m - 1, a.d)) / 86_400_000) +
      1;
    const end = Math.min(
      startOfLocalDay(addDays(b, 1), tz),
      compareDates(b, today) >= 0 ? now + 1 : Infinity,
    );
    return { first: a, endMs: end, previousFirst: addDays(a, -days) };
  }
  return null;
}

/** Resolves a period name at `now` in `tz`, cut to `historyDays`; unanswerable periods are a 422. */
export function resolvePeriod(name: string, now: number, tz: string, historyDays: number): ResolvedPeriod {
  const today = localDateOf(now, tz);
  const s = PERIOD_PATTERN.test(name) ? span(name, today, now, tz) : null;
  if (!s) throw invalid(`period "${name}" is not understood; use ${PERIOD_HELP}`);
  const limitDay = addDays(today, -(historyDays - 1));
  const limitMs = startOfLocalDay(limitDay, tz);
  let from = startOfLocalDay(s.first, tz);
  const to = s.endMs;
  if (from > now) throw invalid(`period "${name}" starts in the future; ask about a period up to today`);
  if (to <= limitMs) {
    throw invalid(
      `period "${name}" ends before this plan's ${historyDays}-day history; ask about ${
        formatDate(limitDay)
      } or later`,
    );
  }
  const cut = from < limitMs;
  const notices: string[] = [];
  if (cut) {
    from = limitMs;
    notices.push(
      `period cut to this plan's ${historyDays}-day history: it starts ${formatDate(limitDay)}, not ${
        formatDate(s.first)
      }`,
    );
  }
  // The previous window: same calendar shape when whole months or days, else the same length.
  const prevFrom = startOfLocalDay(s.previousFirst, tz);
  const prevTo = startOfLocalDay(s.first, tz);
  // A period that ends now compares with the same elapsed time of the window before (today so far against
  // yesterday up to this hour); a closed period compares with the whole window before.
  const endsNow = to === now + 1;
  const prevEnd = endsNow ? Math.min(prevTo, prevFrom + (to - from)) : prevTo;
  // A previous window the history limit would shorten gives a misleading change: no comparison instead.
  const previous = cut || prevFrom < limitMs ? null : { from: prevFrom, to: prevEnd };
  if (!cut && prevFrom < limitMs) {
    notices.push(
      `no comparison with the period before: it starts ${
        formatDate(s.previousFirst)
      }, before this plan's ${historyDays}-day history`,
    );
  }
  const lastDay = localDateOf(to - 1, tz);
  return {
    name,
    timezone: tz,
    from,
    to,
    from_date: formatDate(localDateOf(from, tz)),
    to_date: formatDate(lastDay),
    previous: previous && previous.to > previous.from ? previous : null,
    cut_by_history: cut,
    history_days: historyDays,
    notices,
  };
}
