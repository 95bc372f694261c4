/**
 * Which of an answer's figures are its headline, one rule for the app's answer view (routes/app/answer_view.tsx)
 * and the dashboards behavior_saved answers (insight_runs.ts): its `summary` object's figures first (the counts
 * a coverage answer leads with), then its top-level ones, at most 8; never the request's settings echoed back,
 * a list's total or nothing withheld.
 */
import { FEWER_THAN_5 } from "../lib/answers/privacy.ts";

type Obj = Record<string, unknown>;
export type Compared = { value: unknown; previous: unknown; change?: number | null };

/** An answer's envelope and how a list is ordered: never a figure. */
const NOT_FIGURES = new Set(["scope", "notices", "offset", "sort"]);
/** The request's settings echoed in an answer (how far back, when a page is stale, a window, a limit). */
export const SETTING = /^(lookback|stale_after|window|limit|min|max)(_|$)/;
const HEADLINE_MAX = 8;

const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
export const isCompared = (v: unknown): v is Compared => isObj(v) && "value" in v && "previous" in v;
/** A figure: a number, or a count withheld as "fewer than 5". */
export const isFigure = (v: unknown): v is number | typeof FEWER_THAN_5 =>
  typeof v === "number" || v === FEWER_THAN_5;

/** The headline figures of one object (an answer, or a list's item), in order: `[name, figure or compared]`. */
export function headlineEntries(answer: Obj): [string, number | typeof FEWER_THAN_5 | Compared][] {
  const out: [string, number | typeof FEWER_THAN_5 | Compared][] = [];
  const summary = isObj(answer.summary) ? Object.entries(answer.summary) : [];
  for (const [k, v] of [...summary, ...Object.entries(answer)]) {
    if (out.length >= HEADLINE_MAX) break;
    if (NOT_FIGURES.has(k) || SETTING.test(k) || k.endsWith("_total")) continue;
    if (k.endsWith("_withheld") && v === 0) continue; // nothing withheld is nothing to say
    if (isFigure(v) || isCompared(v)) out.push([k, v]);
  }
  return out;
}
