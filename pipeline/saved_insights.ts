/**
 * Saved insights are read tools with their inputs: checked against the tool's input schema when saved (here,
 * for the app's forms), run through the same tool when asked (toolkit/insight_runs.ts, which the tools use and
 * which must not import the registry back), and reduced to headline figures and one chart series for
 * dashboards.
 */
import { invalid } from "../lib/errors.ts";
import { describeZodError } from "../lib/schemas/zod_errors.ts";
import type { Tool } from "../toolkit/tool.ts";
import { maskedNameProblem } from "../toolkit/masked_inputs.ts";
import { INSIGHT_TOOLS } from "../tools/registry.ts";

export {
  type ChartPoint,
  chartSeries,
  type Figure,
  headlineFigures,
  runInsight,
} from "../toolkit/insight_runs.ts";

/** Tools an insight may ask, as tools/registry.ts declares them. */
export function insightTools(): Tool[] {
  return [...INSIGHT_TOOLS];
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
  const masked = t.storedMasked ? null : maskedNameProblem(parsed.data);
  if (masked) throw invalid(`input of ${tool}: ${masked}`);
  return input;
}
