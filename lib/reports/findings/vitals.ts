/** Core Web Vitals that got worse on a page (behavior_performance, by page, with previous_p75). */
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, num, pct, relative } from "./common.ts";
import { shownPath } from "../../url_path.ts";

/** The published thresholds (good up to the first, poor above the second), as behavior_performance rates. */
const LIMITS = { LCP: [2500, 4000], INP: [200, 500], CLS: [0.1, 0.25] } as const;
type Vital = keyof typeof LIMITS;
const RANK = { good: 0, needs_improvement: 1, poor: 2 } as const;
const rankOf = (v: Vital, x: number) => x <= LIMITS[v][0] ? 0 : x <= LIMITS[v][1] ? 1 : 2;
const WORDS = ["good", "needs improvement", "poor"];
// CLS to three decimals: rounded to two, a p75 of 0.104 read "0.1 (needs improvement)", which is good
const unit = (v: Vital, x: number) =>
  v === "CLS" ? String(Math.round(x * 1000) / 1000) : `${num(Math.round(x))} ms`;

/**
 * `previous` is asked only when some page looks worse, for its page loads the period before: a quiet week
 * costs one call.
 */
export async function vitalsFindings(
  c: FindingContext,
  perf: Json,
  previous: () => Promise<Json | null>,
): Promise<Finding[]> {
  const found = worse(c, perf);
  if (!found.length) return [];
  const before = await previous();
  if (!before) return [];
  const t = THRESHOLDS.vitals;
  const loadsBefore = new Map<string, number>((before.groups as Json[]).map((g) => [g.name, g.page_loads]));
  return found.filter((f) => (loadsBefore.get(String(f.numbers.page)) ?? 0) >= t.min_page_loads)
    .sort((a, b) => b.weight - a.weight).slice(0, t.max);
}

function worse(c: FindingContext, perf: Json): Finding[] {
  const t = THRESHOLDS.vitals;
  const out: Finding[] = [];
  for (const g of perf.groups as Json[]) {
    if (g.page_loads < t.min_page_loads) continue;
    for (const v of Object.keys(LIMITS) as Vital[]) {
      const m = g.vitals[v];
      if (m.p75 === null || m.previous_p75 === null) continue;
      const now = rankOf(v, m.p75), before = rankOf(v, m.previous_p75);
      const growth = relative(m.p75, m.previous_p75);
      const worse = now > before || (now > RANK.good && growth !== null && growth >= t.min_growth);
      if (!worse) continue;
      out.push({
        kind: "vitals_regression",
        claim: `${v} on ${shownPath(g.name)} got worse: p75 ${unit(v, m.p75)} (${WORDS[now]}), was ${
          unit(v, m.previous_p75)
        } (${WORDS[before]})${growth !== null ? `, ${pct(growth)}` : ""}; ${
          num(typeof m.measured === "number" ? m.measured : g.page_loads)
        } page loads measured.`,
        numbers: {
          page: g.name,
          metric: v,
          p75: m.p75,
          previous_p75: m.previous_p75,
          rating: WORDS[now],
          previous_rating: WORDS[before],
          page_loads: g.page_loads,
          measured: typeof m.measured === "number" ? m.measured : g.page_loads,
        },
        weight: (now - before) + (growth ?? 0),
        reproduce: [
          call("behavior_performance", {
            touchpoint: c.touchpoint.id,
            period: c.period.period,
            page: g.name,
          }),
        ],
      });
    }
  }
  return out;
}
