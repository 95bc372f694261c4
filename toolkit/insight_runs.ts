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
import { headlineEntries, isCompared } from "./headline.ts";

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

const SKIP = new Set(["scope", "notices", "offset"]);
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

/** The headline figures of one object (headline.ts chooses them), named `prefix`+key. */
function figuresOf(v: Obj, prefix: string): Figure[] {
  return headlineEntries(v).map(([k, x]) =>
    isCompared(x)
      ? {
        name: `${prefix}${k}`,
        value: x.value as Count | null,
        previous: x.previous as Count | null,
        change: x.change ?? null,
      }
      : { name: `${prefix}${k}`, value: x }
  );
}

/** What an item of a list is called: its label, page or name (an app's own name). */
function itemName(item: Obj): string | null {
  for (const k of ["label", "name", "page", "crawler", "event", "step", "source"]) {
    if (typeof item[k] === "string" || typeof item[k] === "number") return String(item[k]);
  }
  return isObj(item.app) && typeof item.app.name === "string" ? item.app.name : null;
}

/**
 * An answer's headline, at most 8 figures, as the app's answer view chooses them (headline.ts), compared ones
 * with previous and change. An answer that is only a list (pages, an app's themes) leads with the list's total
 * and its first item's figures.
 */
export function headlineFigures(answer: Obj): Figure[] {
  const out = figuresOf(answer, "");
  if (!out.length) {
    const first = Object.entries(answer).find(([k, v]) =>
      !SKIP.has(k) && Array.isArray(v) && v.length > 0 && isObj(v[0])
    );
    if (first) {
      const [k, v] = first as [string, Obj[]];
      const total = answer[`${k}_total`];
      if (typeof total === "number") out.push({ name: k, value: total });
      const name = itemName(v[0]);
      out.push(...figuresOf(v[0], name ? `${name}: ` : ""));
    }
  }
  return out.slice(0, 8);
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
  "crawler",
  "file",
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
