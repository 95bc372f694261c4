import { z } from "zod";
import { groupCount, groupParts, groupSize } from "../lib/answers/group_counts.ts";
import { answerSchema, cohortInput, pageInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { isFew, SMALL_GROUP } from "../lib/answers/privacy.ts";
import type {
  EventField,
  NumberRuns,
  Scope as EngineScope,
  SeriesGroup,
  ValueSeriesResult,
} from "../lib/query/api.ts";
import { label, rate, resolve } from "../toolkit/common.ts";
import { defineTool } from "../toolkit/tool.ts";

/** The published Core Web Vitals thresholds: good up to the first, poor above the second. */
export const THRESHOLDS = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] } as const;
type Vital = keyof typeof THRESHOLDS;
const VITALS = Object.keys(THRESHOLDS) as Vital[];
const GROUPS = { page: "page", device: "device_type" } as const satisfies Record<string, EventField>;
const RATINGS = ["good", "needs_improvement", "poor"] as const;
type Rating = (typeof RATINGS)[number];

const vital = z.object({
  measured: groupCount("events", z.number()).describe("page loads that reported this metric"),
  p50: z.number().nullable(),
  p75: z.number().nullable(),
  p95: z.number().nullable(),
  rating: z.enum(RATINGS).nullable().describe("of the p75, by the published thresholds"),
  shares: z.object({ good: z.number(), needs_improvement: z.number(), poor: z.number() }).nullable()
    .describe(
      "share (0-1) of the measured page loads in each rating; null under a saved cohort where a rating " +
        "holds 1 to 4 page loads (multiplied back, a share would tell them)",
    ),
  previous_p75: z.number().nullable().describe("p75 in the previous period"),
});
const vitals = z.object({ LCP: vital, INP: vital, CLS: vital });

const output = answerSchema({
  by: z.enum(["page", "device"]),
  units: z.object({ LCP: z.literal("ms"), INP: z.literal("ms"), CLS: z.literal("unitless") }),
  overall: z.object({
    page_loads: groupCount("events", z.number()).describe(
      "page loads that reported web vitals (not pageviews)",
    ),
    visitors: groupSize(z.number()),
    vitals,
  }),
  // by device, one device type per visitor: the groups split `overall`; by page, each page load is of one page,
  // so the pages split its page loads (a visitor's pages do not split its visitors)
  groups: groupParts(
    (a) => {
      const o = a.overall as Record<string, unknown>;
      return a.by === "device"
        ? { page_loads: o.page_loads, visitors: o.visitors }
        : { page_loads: o.page_loads };
    },
    z.array(z.object({
      name: z.string().describe('the page or the device type; "(other)" gathers folded ones'),
      page_loads: groupCount("events", z.number()).describe("page loads with a web vitals report"),
      visitors: groupSize(z.number()),
      vitals: vitals.nullable().describe('null for "(other)": its pages or devices are not measured apart'),
    })),
  ).describe(
    "under a cohort, pages or devices of 1 to 4 visitors (and where needed the smallest beside them) are " +
      'folded into "(other)"',
  ),
  groups_total: z.number(),
});

/** Exact nearest-rank percentile over a histogram of stored values (values ascending, their counts). */
export function percentile(hist: NumberRuns, n: number, p: number): number | null {
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  let seen = 0;
  for (let k = 0; k < hist.values.length; k++) if ((seen += hist.counts[k]) >= rank) return hist.values[k];
  return null;
}

export function ratingOf(metric: Vital, value: number): Rating {
  const t = THRESHOLDS[metric];
  return value <= t[0] ? "good" : value <= t[1] ? "needs_improvement" : "poor";
}

type Counts = NumberRuns;
const NO_COUNTS: Counts = { values: new Float64Array(0), counts: new Float64Array(0) };

/**
 * The bound on the relative error of an answer's numbers: the engine answers from histograms (within 1%)
 * when the period is too large to scan, and says so in `relative_error` (absent: exact).
 */
const approximation = (r: ValueSeriesResult): number => r.relative_error ?? 0;

/** One metric of a group, as the engine counted it: its numbers and its reporters (people, up to 5). */
type Series = SeriesGroup["series"][string] | undefined;

/** Whether 5 or more people reported the metric's numbers in the group (else they are not shown). */
const enoughReporters = (s: Series) => (s?.reporters ?? 0) >= SMALL_GROUP;

/**
 * Whether the ratings of nearest-rank percentiles of n values tell that a rating holds 1 to 4 of them. The
 * values sorted hold the good ones, then those needing improvement, then the poor ones; a percentile at rank r
 * rated good says good >= r, rated poor says good + needs_improvement < r. With 6 values, p75 (rank 5) good
 * and p95 (rank 6) poor say exactly 1 is poor: what a share of 1/6 would say.
 */
export function tellsFew(metric: Vital, n: number, shown: [number, number][]): boolean {
  // bounds on good (g) and on good + needs improvement (gm), from each percentile's rank and rating
  let gLo = 0, gHi = n, gmLo = 0, gmHi = n;
  for (const [p, value] of shown) {
    const r = Math.max(1, Math.ceil(p * n)), rating = ratingOf(metric, value);
    if (rating === "good") gLo = Math.max(gLo, r);
    else gHi = Math.min(gHi, r - 1);
    if (rating === "poor") gmHi = Math.min(gmHi, r - 1);
    else gmLo = Math.max(gmLo, r);
  }
  const ranges = [[gLo, gHi], [Math.max(0, gmLo - gHi), gmHi - gLo], [n - gmHi, n - gmLo]];
  return ranges.some(([lo, hi]) => lo >= 1 && hi < SMALL_GROUP);
}

/**
 * A metric's figures in a group. Its percentiles, rating and shares are given only when 5 or more people
 * reported it there (a group of 5 visitors whose INP came from one of them showed that visitor's INP), its
 * previous p75 only when 5 or more did in the previous period too. Under a saved cohort (`cohort`) the
 * shares are withheld where a rating holds 1 to 4 page loads (share times measured would tell them), and the
 * percentiles and rating too where their ratings alone would tell such a count (`tellsFew`).
 */
function summarize(
  metric: Vital,
  now: Series,
  prev: Series,
  cohort: boolean,
  withheld = { shares: 0, percentiles: 0 },
) {
  const sorted: Counts = now?.counts ?? NO_COUNTS, prevSorted: Counts = prev?.counts ?? NO_COUNTS;
  const n = sorted.counts.reduce((s, x) => s + x, 0);
  const prevN = prevSorted.counts.reduce((s, x) => s + x, 0);
  const enough = enoughReporters(now);
  const show = enough && n > 0;
  const p75 = show ? percentile(sorted, n, 0.75) : null;
  const shares = { good: 0, needs_improvement: 0, poor: 0 };
  for (let k = 0; k < sorted.values.length; k++) {
    shares[ratingOf(metric, sorted.values[k])] += sorted.counts[k];
  }
  const sharesShown = show && !(cohort && RATINGS.some((k) => isFew(shares[k])));
  if (show && !sharesShown) withheld.shares++;
  const p50 = show ? percentile(sorted, n, 0.5) : null, p95 = show ? percentile(sorted, n, 0.95) : null;
  const shown = show && !(cohort && tellsFew(metric, n, [[0.5, p50!], [0.75, p75!], [0.95, p95!]]));
  if (show && !shown) withheld.percentiles++;
  return {
    measured: n,
    p50: shown ? p50 : null,
    p75: shown ? p75 : null,
    p95: shown ? p95 : null,
    rating: shown ? ratingOf(metric, p75!) : null,
    shares: sharesShown
      ? {
        good: rate(shares.good / n)!,
        needs_improvement: rate(shares.needs_improvement / n)!,
        poor: rate(shares.poor / n)!,
      }
      : null,
    // a time is never given for fewer than 5 visitors: the previous period's reporters count on their own
    previous_p75: enough && enoughReporters(prev) && prevN > 0 ? percentile(prevSorted, prevN, 0.75) : null,
  };
}

export default defineTool({
  name: "behavior_performance",
  description:
    "Core Web Vitals measured in visitors' browsers ($web_vitals events): LCP and INP in ms, CLS unitless, " +
    "each as p50, p75 and p95 of the stored values (JSON numbers; nearest rank, exact, or within 1% from hourly " +
    "histograms on sites too large to scan the period, as the notices then say), rated good / needs_improvement / poor at p75 by the " +
    "published thresholds (LCP 2.5 s / 4 s, INP 200 ms / 500 ms, CLS 0.1 / 0.25), with the share of page " +
    "loads in each rating and the p75 of the previous period. Overall and by page (default) or by device; " +
    "pass `page` for one page. A group measured from fewer than 5 visitors gets no percentiles, nor does a " +
    "metric reported by fewer than 5 visitors of a group (no shares either). For where " +
    "visitors leave use behavior_pages; for rage clicks on elements use behavior_features.",
  input: z.object({
    touchpoint: touchpointInput.optional(),
    cohort: cohortInput.optional(),
    period: periodInput.optional(),
    page: pageInput.optional(),
    by: z.enum(["page", "device"]).optional().describe("default page"),
  }).strict(),
  output,
  async run(ctx, input) {
    const r = resolve(ctx, { ...input, filters: [{ field: "event_type", op: "eq", value: "$web_vitals" }] });
    const by = input.by ?? "page";
    const field: EventField = GROUPS[by];
    // per group and over all: rows, visitors and how often each value of each metric occurs
    const series = (s: EngineScope) =>
      r.engine.valueSeries(s, { by: field, series: "metric", value: "value" });
    const [now, before] = await Promise.all([series(r.scope), r.previous ? series(r.previous) : null]);
    const cohort = ctx.cohort !== null;
    const withheld = { shares: 0, percentiles: 0 };
    const vitalsOf = (g: SeriesGroup, prev: SeriesGroup | undefined) =>
      Object.fromEntries(
        VITALS.map((m) => [m, summarize(m, g.series[m], prev?.series[m], cohort, withheld)]),
      ) as z.infer<typeof vitals>;
    // Page loads: each load reports LCP once.
    const loads = (g: SeriesGroup) => g.series.LCP?.rows ?? 0;
    const previous = new Map(before?.groups.map((g) => [label(g.value), g]));
    const rows = now.groups.map((g) => ({
      name: label(g.value),
      page_loads: loads(g),
      visitors: g.visitors,
      g,
    }))
      .sort((a, b) => b.page_loads - a.page_loads || b.visitors - a.visitors || (a.name < b.name ? -1 : 1));
    const few = rows.filter((x) => x.visitors < SMALL_GROUP).length;
    const kind = by === "page" ? "pages" : "devices";
    const notices = few ? [`${few} ${kind} measured from fewer than 5 visitors: no percentiles`] : [];
    // a group of 5 or more whose metric came from fewer of them (INP is reported on interaction only)
    const fewReporters = (g: SeriesGroup) =>
      VITALS.filter((m) => (g.series[m]?.rows ?? 0) > 0 && !enoughReporters(g.series[m]));
    const thin = new Map<Vital, number>();
    const overallThin = now.total.visitors >= SMALL_GROUP ? fewReporters(now.total) : [];
    for (const x of rows) {
      if (x.visitors < SMALL_GROUP) continue;
      for (const m of fewReporters(x.g)) thin.set(m, (thin.get(m) ?? 0) + 1);
    }
    for (const m of VITALS) {
      const k = thin.get(m) ?? 0, all = overallThin.includes(m);
      if (!k && !all) continue;
      const groups = k === 1 ? `1 ${by}` : `${k} ${kind}`;
      const where = [all ? "overall" : null, k ? groups : null].filter(Boolean).join(" and ");
      notices.push(`${m} reported by fewer than 5 visitors (${where}): no percentiles or shares for it`);
    }
    // percentiles only for the groups shown
    const overall = {
      page_loads: loads(now.total),
      visitors: now.total.visitors,
      vitals: vitalsOf(now.total, before?.total),
    };
    const groups = rows.slice(0, 25).map(({ g, ...row }) => ({
      ...row,
      vitals: vitalsOf(g, previous.get(row.name)),
    }));
    if (withheld.shares) {
      notices.push(
        "under a saved cohort, rating shares are withheld where a rating holds 1 to 4 page loads" +
          (withheld.percentiles ? ", and percentiles where their ratings would tell such a count" : ""),
      );
    }
    // a page with pageviews but no vitals reads "page loads 0": say that this counts measured loads only
    if (overall.page_loads === 0) {
      notices.push(
        "no page load in this period reported Core Web Vitals: page loads here are the measured ones, not " +
          "pageviews (behavior_pages counts those); the web SDK reports vitals when webVitals is on",
      );
    }
    // answers from the parts' histograms say how close their percentiles are (counts and shares stay exact)
    const error = Math.max(approximation(now), before ? approximation(before) : 0);
    if (error > 0) {
      notices.push(
        `percentiles from hourly histograms: each within ${error * 100}% of the exact value ` +
          "(page loads, visitors and rating shares are exact)",
      );
    }
    return {
      scope: r.answerScope,
      by,
      units: { LCP: "ms" as const, INP: "ms" as const, CLS: "unitless" as const },
      overall,
      groups,
      groups_total: rows.length,
      notices,
    };
  },
});
