/**
 * A saved insight run inside another question (behavior_saved's insight and dashboard actions): its tool,
 * found among the tools the call says an insight may ask (`ctx.insightTools`, passed in by the pipeline, so
 * nothing here imports the registry back), answered by the pipeline's own step (cohort, tool, small-group
 * rule) within the asking call's access and usage; and an answer reduced to headline figures and one chart
 * series for dashboards.
 */
import { invalid } from "../lib/errors.ts";
import { describeZodError } from "../lib/schemas/zod_errors.ts";
import type { SavedInsight } from "../lib/saved/records.ts";
import { insightToolInput } from "../lib/saved/tool_input.ts";
import type { ToolContext } from "./tool.ts";
import { answerTool } from "./answer.ts";
import { maskedNameProblem } from "./masked_inputs.ts";

/**
 * Runs an insight as its tool would answer it, optionally over another period. A saved input that no longer
 * validates (the tool changed) is a 422 saying what is wrong.
 */
export async function runInsight(
  ctx: ToolContext,
  insight: SavedInsight,
  period?: string,
): Promise<Record<string, unknown>> {
  const tool = ctx.insightTools.find((x) => x.name === insight.tool);
  if (!tool) {
    throw invalid(`insight "${insight.name}" asks "${insight.tool}", which is no longer a read tool`);
  }
  const fields = "shape" in tool.input ? (tool.input.shape as Record<string, unknown>) : {};
  const kind = ctx.touchpoints.find((t) => t.id === insight.touchpoint)?.kind ?? null;
  const raw = insightToolInput(
    insight,
    { takesTouchpoint: "touchpoint" in fields, takesApp: "app" in fields },
    kind,
    period,
  );
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    throw invalid(
      `insight "${insight.name}" no longer validates: ${describeZodError(parsed.error, "input")}`,
    );
  }
  // saved before the masked-name rule: a 422 saying what to change, not a silent 0 on a dashboard
  const masked = tool.storedMasked ? null : maskedNameProblem(parsed.data);
  if (masked) throw invalid(`insight "${insight.name}" no longer validates: ${masked}`);
  return await answerTool(ctx, tool, parsed.data);
}

export interface ChartPoint {
  label: string;
  /** null where the group reads "fewer than 5" (a small group under a saved cohort): withheld, not 0 */
  value: number | null;
}

type Count = number | "fewer than 5";
export interface Figure {
  name: string;
  value: Count | null;
  previous?: Count | null;
  change?: number | null;
}

const isFigure = (v: unknown) => typeof v === "number" || v === "fewer than 5";
const SKIP = new Set(["scope", "notices", "offset"]);

/** An answer's headline: its top-level figures (compared ones with previous and change), at most 8. */
export function headlineFigures(answer: Record<string, unknown>): Figure[] {
  const out: Figure[] = [];
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k) || k.endsWith("_total") || out.length >= 8) continue;
    if (isFigure(v)) out.push({ name: k, value: v as number });
    else if (v && typeof v === "object" && !Array.isArray(v) && "value" in v && "previous" in v) {
      const c = v as { value: Count | null; previous: Count | null; change?: number | null };
      out.push({ name: k, value: c.value, previous: c.previous, change: c.change ?? null });
    }
  }
  return out;
}

const LABELS = [
  "label",
  "page",
  "name",
  "bucket",
  "step",
  "value",
  "source",
  "country",
  "device",
  "event",
  "cohort",
];
const NUMBERS = ["visitors", "count", "value", "pageviews", "events", "sessions", "requests"];

/** The first list of an answer as up to 12 labelled numbers, for a small chart. */
export function chartSeries(
  answer: Record<string, unknown>,
): { field: string; measure: string; points: ChartPoint[] } | null {
  for (const [k, v] of Object.entries(answer)) {
    if (SKIP.has(k) || !Array.isArray(v) || !v.length || typeof v[0] !== "object" || v[0] === null) continue;
    const first = v[0] as Record<string, unknown>;
    const label = LABELS.find((l) => typeof first[l] === "string" || typeof first[l] === "number");
    const measure = NUMBERS.find((n) =>
      n !== label && v.some((x) => typeof (x as Record<string, unknown>)[n] === "number")
    );
    if (!label || !measure) continue;
    const points = (v as Record<string, unknown>[]).slice(0, 12).map((x, i) => ({
      label: x[label] === null || x[label] === undefined ? `#${i + 1}` : String(x[label]),
      value: typeof x[measure] === "number" ? x[measure] as number : null,
    }));
    return { field: k, measure, points };
  }
  return null;
}
