/**
 * Days and times as people read them: "29 Nov 2026", "29 Nov 2026, 20:34", "29 Nov, 20:34" in a named time
 * zone. The one month table of the service's words (lib/reports/periods.ts reads it too).
 */
import { NBSP, type Space } from "./duration.ts";

export const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
export const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** An ISO instant as answers give one: "2026-11-29T19:34:32.181Z", "2026-11-29T20:34+01:00". */
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A day as people write it, month 1 to 12: "29 Nov 2026" (its spaces `space`: no-break on pages). */
export const dayText = (y: number, m: number, d: number, space: Space = " ") =>
  [d, MONTHS[m - 1], y].join(space);

/** A day (of an ISO instant, UTC) kept on one line by no-break spaces: "29 Nov 2026". */
export function shortDate(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return dayText(at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate(), NBSP);
}

/**
 * An instant in `timeZone`: "29 Nov 2026, 20:34", or "29 Nov, 20:34" without the year (a page's column, whose
 * period the page states). Without a zone, or with one that is not a time zone, it reads in UTC and says so
 * ("29 Nov 2026, 19:34 UTC"). The day's words are joined by `space`, so a no-break space keeps them together
 * and a narrow column breaks only before the time.
 */
export function localTime(
  iso: string,
  timeZone: string | null,
  { year, space }: { year: boolean; space: Space },
): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const opts: Intl.DateTimeFormatOptions = {
    day: "numeric",
    month: "short",
    year: year ? "numeric" : undefined,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  };
  let text: string | null = null;
  try {
    if (timeZone) text = new Intl.DateTimeFormat("en-GB", { ...opts, timeZone }).format(at);
  } catch {
    // not a time zone: UTC, said
  }
  text ??= `${new Intl.DateTimeFormat("en-GB", { ...opts, timeZone: "UTC" }).format(at)} UTC`;
  const [day, ...rest] = text.split(", ");
  return [day.replaceAll(" ", space), ...rest].join(", ");
}

/** An instant as a page's table cell shows it, in `timeZone`, which the column's header names: "29 Nov, 18:31". */
export const shortTime = (iso: string, timeZone = "UTC") =>
  localTime(iso, timeZone, { year: false, space: NBSP });

const TIME_IN_TEXT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A notice's times ("data fresh to 2026-11-29T19:34:32.181Z") in `timeZone`, which it names: compact on a page
 * ("29 Nov, 20:34 (Europe/Berlin)"), or as `style` says (text for assistants: with the year, plain spaces).
 */
export const timesInText = (
  text: string,
  timeZone: string,
  style: { year: boolean; space: Space } = { year: false, space: NBSP },
) => text.replace(TIME_IN_TEXT, (t) => `${localTime(t, timeZone, style)} (${timeZone})`);
