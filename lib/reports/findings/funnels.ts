/** Conversion changes of the saved funnels (saved insights asking behavior_funnel) of the touchpoint. */
import type { SavedInsight } from "../../saved/records.ts";
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, num, pct, relative } from "./common.ts";

const share = (x: number) => `${Math.round(x * 1000) / 10}%`;

export async function funnelFindings(c: FindingContext, insights: SavedInsight[]): Promise<Finding[]> {
  const t = THRESHOLDS.funnels;
  const funnels = insights.filter((i) => i.tool === "behavior_funnel" && i.touchpoint === c.touchpoint.id)
    .slice(0, t.max_insights);
  const out: Finding[] = [];
  for (const f of funnels) {
    const now = { ...f.input, touchpoint: c.touchpoint.id, period: c.period.period };
    const before = { ...now, period: c.period.previous };
    const [a, b] = await Promise.all([
      c.ask("behavior_funnel", now).catch(() => null),
      c.ask("behavior_funnel", before).catch(() => null),
    ]) as [Json | null, Json | null];
    if (!a || !b) continue;
    const first = (x: Json) => typeof x.steps?.[0]?.visitors === "number" ? x.steps[0].visitors as number : 0;
    const cv = a.overall_conversion as number | null, pv = b.overall_conversion as number | null;
    if (cv === null || pv === null || first(a) < t.min_visitors || first(b) < t.min_visitors) continue;
    const change = relative(cv, pv);
    if (Math.abs(cv - pv) < t.min_points || change === null || Math.abs(change) < t.min_change) continue;
    out.push({
      kind: "funnel_change",
      claim: `Funnel "${f.name}": ${share(cv)} of ${num(first(a))} visitors converted, ${
        cv > pv ? "up" : "down"
      } from ${share(pv)} (${pct(change)}).`,
      numbers: { insight: f.name, conversion: cv, previous: pv, change, visitors: first(a) },
      weight: Math.abs(change),
      reproduce: [call("behavior_funnel", now), call("behavior_funnel", before)],
    });
  }
  return out;
}
