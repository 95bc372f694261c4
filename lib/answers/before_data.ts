/**
 * Comparisons with a window that starts before the environment's first data (choices in docs/read-api.md):
 * the previous window's figures then count only the days that hold data, so a change against it overstates
 * growth (the demo's September against an August with two days of data read "+1512.9%"). The answer says so in
 * a notice, and when less than half of the window holds data its changes are withheld (null, "not comparable")
 * while the previous figures stay, as received.
 */
import { formatDate, localDateOf } from "../time/dates.ts";

/** Below this share of the previous window holding data, changes against it are withheld. */
export const MIN_COMPARED_COVERAGE = 0.5;

export interface CoveredWindow {
  /** the share (0-1) of the window at or after the first data */
  covered: number;
  /** the notice the answer carries */
  notice: string;
}

const DAY_MS = 86_400_000;

/**
 * How much of the previous window [from, to) holds data when the first event arrived at `firstAt`; null when
 * the window starts at or after it (nothing to say). Dates are the organization's (`tz`).
 */
export function beforeFirstData(
  window: { from: number; to: number },
  firstAt: number | null,
  tz: string,
  env: string,
): CoveredWindow | null {
  if (firstAt === null || firstAt <= window.from || window.to <= window.from) return null;
  const covered = Math.max(0, Math.min(1, (window.to - firstAt) / (window.to - window.from)));
  const day = (ms: number) => formatDate(localDateOf(ms, tz));
  const days = Math.max(1, Math.round((window.to - window.from) / DAY_MS));
  const withData = Math.min(days, Math.round(covered * days));
  const what = `the period compared (${day(window.from)} to ${day(window.to - 1)}) starts before data was ` +
    `first received in ${env} (${day(firstAt)}): ${
      withData === 0 ? "none" : `about ${withData}`
    } of its ${days} day${days === 1 ? "" : "s"} hold data`;
  return {
    covered,
    notice: covered < MIN_COMPARED_COVERAGE
      ? `${what}, so changes against it are withheld (change null; previous figures are as received)`
      : `${what}, so changes against it overstate growth`,
  };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * Sets every compared figure's change (an object with `value`, `previous` and a numeric `change`) to null, in
 * place, at any depth; returns how many were withheld.
 */
export function withholdChanges(v: unknown): number {
  let n = 0;
  if (Array.isArray(v)) { for (const x of v) n += withholdChanges(x); }
  else if (isObj(v)) {
    if ("value" in v && "previous" in v && typeof v.change === "number") {
      v.change = null;
      n++;
    }
    for (const [k, x] of Object.entries(v)) if (k !== "scope" && k !== "notices") n += withholdChanges(x);
  }
  return n;
}
