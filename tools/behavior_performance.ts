import { z } from "zod";
import { answerSchema, cohortInput, pageInput, periodInput, touchpointInput } from "../lib/answers/schema.ts";
import { SMALL_GROUP } from "../lib/answers/privacy.ts";
import type { AggregateResult, EventField, Scope as EngineScope } from "../lib/query/api.ts";
import { label, rate, resolve } from "./common.ts";
import { defineTool } from "./tool.ts";

/** The published Core Web Vitals thresholds: good up to the first, poor above the second. */
export const THRESHOLDS = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] } as const;
type Vital = keyof typeof THRESHOLDS;
const VITALS = Object.keys(THRESHOLDS) as Vital[];
const GROUPS = { page: "page", device: "device_type" } as const satisfies Record<string, EventField>;
const RATINGS = ["good", "needs_improvement", "poor"] as const;
type Rating = (typeof RATINGS)[number];

const vital = z.object({
  measured: z.number().describe("page loads that reported this metric"),
  p50: z.number().nullable(),
  p75: z.number().nullable(),
  p95: z.number().nullable(),
  rating: z.enum(RATINGS).nullable().describe("of the p75, by the published thresholds"),
  shares: z.object({ good: z.number(), needs_improvement: z.number(), poor: z.number() }).nullable()
    .describe("share (0-1) of the measured page loads in each rating"),
  previous_p75: z.number().nullable().describe("p75 in the previous period"),
});
const vitals = z.object({ LCP: vital, INP: vital, CLS: vital });

const output = answerSchema({
  by: z.enum(["page", "device"]),
  units: z.object({ LCP: z.literal("ms"), INP: z.literal("ms"), CLS: z.literal("unitless") }),
  overall: z.object({ page_loads: z.number(), visitors: z.number(), vitals }),
  groups: z.array(z.object({
    name: z.string().describe("the page or the device type"),
    page_loads: z.number().describe("page loads with a web vitals report"),
    visitors: z.number(),
    vitals,
  })),
  groups_total: z.number(),
});

/** Exact nearest-rank percentile over a histogram of stored values (value → count), sorted ascending. */
export function percentile(hist: [number, number][], n: number, p: number): number | null {
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  let seen = 0;
  for (const [value, count] of hist) if ((seen += count) >= rank) return value;
  return null;
}

export function ratingOf(metric: Vital, value: number): Rating {
  const [good, poor] = THRESHOLDS[metric];
  return value <= good ? "good" : value <= poor ? "needs_improvement" : "poor";
}

type Hists = Map<string, Map<Vital, Map<number, number>>>;

/** Value counts per group and metric: a counting pass over stored values, exact, no list of every value. */
function histograms(res: AggregateResult, field: EventField | null): Hists {
  const out: Hists = new Map();
  for (const row of res.rows) {
    const metric = row.key["prop:metric"] as Vital;
    const value = Number(row.key["prop:value"]);
    if (!(metric in THRESHOLDS) || !Number.isFinite(value)) continue;
    const g = field ? label(row.key[field]) : "";
    let byMetric = out.get(g);
    if (!byMetric) out.set(g, byMetric = new Map());
    let h = byMetric.get(metric);
    if (!h) byMetric.set(metric, h = new Map());
    h.set(value, (h.get(value) ?? 0) + (row.metrics.events ?? 0));
  }
  return out;
}

function summarize(
  metric: Vital,
  h: Map<number, number> | undefined,
  prev: Map<number, number> | undefined,
  enough: boolean,
) {
  const sorted = [...(h ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  const n = sorted.reduce((s, [, c]) => s + c, 0);
  const prevSorted = [...(prev ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
  const prevN = prevSorted.reduce((s, [, c]) => s + c, 0);
  const show = enough && n > 0;
  const p75 = show ? percentile(sorted, n, 0.75) : null;
  const shares = { good: 0, needs_improvement: 0, poor: 0 };
  for (const [v, c] of sorted) shares[ratingOf(metric, v)] += c;
  return {
    measured: n,
    p50: show ? percentile(sorted, n, 0.5) : null,
    p75,
    p95: show ? percentile(sorted, n, 0.95) : null,
    rating: p75 === null ? null : ratingOf(metric, p75),
    shares: show
      ? {
        good: rate(shares.good / n)!,
        needs_improvement: rate(shares.needs_improvement / n)!,
        poor: rate(shares.poor / n)!,
      }
      : null,
    previous_p75: enough && prevN > 0 ? percentile(prevSorted, prevN, 0.75) : null,
  };
}

export default defineTool({
  name: "behavior_performance",
  description:
    "Core Web Vitals measured in visitors' browsers ($web_vitals events): LCP and INP in ms, CLS unitless, " +
    "each as exact p50, p75 and p95 of the stored values, rated good / needs_improvement / poor at p75 by the " +
    "published thresholds (LCP 2.5 s / 4 s, INP 200 ms / 500 ms, CLS 0.1 / 0.25), with the share of page " +
    "loads in each rating and the p75 of the previous period. Overall and by page (default) or by device; " +
    "pass `page` for one page. A group measured from fewer than 5 visitors gets no percentiles. For where " +
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
    const values = (s: EngineScope, f: EventField | null) =>
      r.engine.aggregate(s, {
        metrics: ["events"],
        breakdown: [...(f ? [f] : []), "prop:metric", "prop:value"] as EventField[],
      });
    const lcpOnly = { field: "prop:metric" as EventField, op: "eq" as const, value: "LCP" };
    const [now, before, groups, head] = await Promise.all([
      values(r.scope, field),
      r.previous ? values(r.previous, field) : Promise.resolve(null),
      r.engine.aggregate(r.scope, { metrics: ["visitors"], breakdown: [field] }),
      r.engine.aggregate(r.scope, { metrics: ["visitors"] }),
    ]);
    // Page loads: each load reports LCP once.
    const [loads, loadsAll] = await Promise.all([
      r.engine.aggregate({ ...r.scope, filters: [...r.scope.filters ?? [], lcpOnly] }, {
        metrics: ["events"],
        breakdown: [field],
      }),
      r.engine.aggregate({ ...r.scope, filters: [...r.scope.filters ?? [], lcpOnly] }, {
        metrics: ["events"],
      }),
    ]);
    const hNow = histograms(now, field);
    const hBefore = before ? histograms(before, field) : new Map() as Hists;
    // The overall figures fold the groups' counts together.
    const fold = (hs: Hists) => {
      const all = new Map<Vital, Map<number, number>>();
      for (const byMetric of hs.values()) {
        for (const [m, h] of byMetric) {
          let a = all.get(m);
          if (!a) all.set(m, a = new Map());
          for (const [v, c] of h) a.set(v, (a.get(v) ?? 0) + c);
        }
      }
      return all;
    };
    const allNow = fold(hNow);
    const allBefore = fold(hBefore);
    const vitalsOf = (n: Map<Vital, Map<number, number>> | undefined, p: typeof n, enough: boolean) =>
      Object.fromEntries(VITALS.map((m) => [m, summarize(m, n?.get(m), p?.get(m), enough)])) as z.infer<
        typeof vitals
      >;
    const loadsBy = new Map(loads.rows.map((x) => [label(x.key[field]), x.metrics.events ?? 0]));
    const totalVisitors = head.totals.visitors ?? 0;
    const rows = groups.rows.map((g) => {
      const name = label(g.key[field]);
      const visitors = g.metrics.visitors ?? 0;
      return {
        name,
        page_loads: loadsBy.get(name) ?? 0,
        visitors,
        vitals: vitalsOf(hNow.get(name), hBefore.get(name), visitors >= SMALL_GROUP),
      };
    }).sort((a, b) => b.page_loads - a.page_loads || b.visitors - a.visitors || (a.name < b.name ? -1 : 1));
    const few = rows.filter((x) => x.visitors < SMALL_GROUP).length;
    return {
      scope: r.answerScope,
      by,
      units: { LCP: "ms" as const, INP: "ms" as const, CLS: "unitless" as const },
      overall: {
        page_loads: loadsAll.totals.events ?? 0,
        visitors: totalVisitors,
        vitals: vitalsOf(allNow, allBefore, totalVisitors >= SMALL_GROUP),
      },
      groups: rows.slice(0, 25),
      groups_total: rows.length,
      notices: few
        ? [
          `${few} ${by === "page" ? "pages" : "devices"} measured from fewer than 5 visitors: no percentiles`,
        ]
        : [],
    };
  },
});
