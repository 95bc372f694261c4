/** Periods in words, for the reports, the app's pages and the assistant views. */
import { metricLabel } from "./labels.ts";
import { dayText, MONTH_NAMES, MONTHS } from "./times.ts";

/**
 * A period as people read it, from the form the tools take: "2026-11-16..2026-11-22" → "16–22 Nov 2026",
 * "2026-10-26..2026-11-01" → "26 Oct – 1 Nov 2026", "2026-11" → "November 2026", "2026-11-16" → "16 Nov
 * 2026". Anything else (a named period) as it is.
 */
export function periodText(period: string): string {
  const day = (s: string) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    return m && Number(m[2]) >= 1 && Number(m[2]) <= 12
      ? { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) }
      : null;
  };
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month && Number(month[2]) >= 1 && Number(month[2]) <= 12) {
    return `${MONTH_NAMES[Number(month[2]) - 1]} ${month[1]}`;
  }
  const [a, b] = period.split("..");
  const from = day(a), to = b === undefined ? from : day(b);
  if (!from || !to) return period;
  const short = (x: { m: number; d: number }) => `${x.d} ${MONTHS[x.m - 1]}`;
  if (b === undefined || a === b) return dayText(from.y, from.m, from.d);
  if (from.y !== to.y) return `${short(from)} ${from.y} – ${short(to)} ${to.y}`;
  if (from.m !== to.m) return `${short(from)} – ${short(to)} ${to.y}`;
  return `${from.d}–${to.d} ${MONTHS[to.m - 1]} ${to.y}`;
}

/** Any period a tool takes in words: dates as `periodText` writes them, a named one by its label ("Last 28 days"). */
export function periodWords(period: string): string {
  const text = periodText(period);
  // the named periods' labels are their ids in words: last_28_days reads "Last 28 days"
  return text === period && /^[a-z][a-z0-9_]*$/.test(period) ? metricLabel(period) : text;
}
