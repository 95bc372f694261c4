/**
 * Saved insights are read tools with their inputs: checked against the tool's input schema when saved, run
 * through the same tool when asked, and reduced to headline figures and one chart series for dashboards.
 */
import { invalid } from "../lib/errors.ts";
import { describeZodError } from "../lib/schemas/zod_errors.ts";
import type { SavedInsight } from "../lib/saved/records.ts";
import type { Tool, ToolContext } from "./tool.ts";
import { TOOLS } from "./registry.ts";
import { namedCohort, SMALL_GROUP_NOTICE } from "./pipeline/cohort.ts";
import { guardSmallGroups } from "../lib/answers/small_groups.ts";

/** Tools an insight may ask: the behavior and feedback questions (not the account, not saved items). */
export function insightTools(): Tool[] {
  return TOOLS.filter((t) =>
    (t.name.startsWith("behavior_") || t.name.startsWith("feedback_")) && t.name !== "behavior_saved"
  );
}

/** The inputs as the tool takes them, or a 422 naming what is wrong (the insight's touchpoint is set apart). */
export function checkInsightInput(tool: string, input: Record<string, unknown>): Record<string, unknown> {
  const t = insightTools().find((x) => x.name === tool);
  if (!t) {
    throw invalid(
      `tool: no read tool "${tool}" an insight can ask; choose one of ${
        insightTools().map((x) => x.name).join(", ")
      }`,
    );
  }
  if ("touchpoint" in input) {
    throw invalid("input.touchpoint: an insight's website or app is chosen apart from its inputs");
  }
  const parsed = t.input.safeParse(input);
  if (!parsed.success) throw invalid(`input of ${tool}: ${describeZodError(parsed.error, "input")}`);
  return input;
}

/**
 * Runs an insight as its tool would answer it, optionally over another period. A saved input that no longer
 * validates (the tool changed) is a 422 saying what is wrong.
 */
export async function runInsight(
  ctx: ToolContext,
  insight: SavedInsight,
  period?: string,
): Promise<Record<string, unknown>> {
  const tool = insightTools().find((x) => x.name === insight.tool);
  if (!tool) {
    throw invalid(`insight "${insight.name}" asks "${insight.tool}", which is no longer a read tool`);
  }
  const raw = { ...insight.input, touchpoint: insight.touchpoint, ...(period ? { period } : {}) };
  const parsed = tool.input.safeParse(raw);
  if (!parsed.success) {
    throw invalid(
      `insight "${insight.name}" no longer validates: ${describeZodError(parsed.error, "input")}`,
    );
  }
  const cohort = await namedCohort(ctx.app, ctx.org.id, parsed.data);
  const answer = await tool.run({ ...ctx, cohort }, parsed.data);
  if (cohort && guardSmallGroups(answer)) answer.notices.push(SMALL_GROUP_NOTICE);
  return answer;
}

export interface ChartPoint {
  label: string;
  value: number;
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
      value: typeof x[measure] === "number" ? x[measure] as number : 0,
    }));
    return { field: k, measure, points };
  }
  return null;
}
