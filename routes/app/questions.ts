/**
 * The read tools an insight asks, in people's words: the tool descriptions' hints without parameter names, and
 * an insight summarised in one line. The words for questions, inputs and choices are lib/format/questions.ts
 * (re-exported here for the builder), a call in words lib/format/call_words.ts.
 */
import type { SavedInsight } from "../../lib/saved/records.ts";
import type { Touchpoint } from "../../lib/store/records.ts";
import { choiceLabel, fieldLabel } from "../../lib/format/questions.ts";
import { callWords } from "../../lib/format/call_words.ts";
import { insightTools } from "../../pipeline/saved_insights.ts";
import { listing } from "../../pipeline/listing.ts";
import { DEFAULT_PERIOD } from "../../pipeline/context.ts";

export { choiceLabel, fieldLabel, questionLabel, QUESTIONS } from "../../lib/format/questions.ts";

/**
 * A tool's field description without raw parameter names ("`values_limit`" reads "values per property") or
 * raw choices ("default pageviews" reads "default: Pageviews").
 */
export const hintText = (s: string) =>
  s.replace(/\bdefault ([a-z][a-z0-9_]*)\b/g, (_m, v: string) => `default: ${choiceLabel(v)}`)
    .replace(/`?\b([a-z]+(?:_[a-z0-9]+)+)\b`?/g, (_m, w: string) => fieldLabel(w).toLowerCase());

/**
 * The period a question asks when its insight names none: the tool's own default, as its input schema tells
 * assistants ("default last_30_days"), else the read API's (the label said "Last 28 days" for every question).
 */
function defaultPeriodOf(tool: string): string {
  const t = insightTools().find((x) => x.name === tool);
  const props = (t ? listing(t).input_schema.properties : {}) as Record<string, { description?: string }>;
  return /\bdefault (\w+)/.exec(props?.period?.description ?? "")?.[1] ?? DEFAULT_PERIOD;
}

/**
 * An insight in one line of words, as a finding's call reads (lib/format/call_words.ts): its question, website
 * or app, period (the tool's default when it names none) and what it is narrowed to.
 */
export function insightSummary(x: SavedInsight, tps: Touchpoint[]): string {
  const name = (id: string) => tps.find((t) => t.id === id)?.name;
  return callWords(
    { tool: x.tool, input: { ...x.input, touchpoint: x.touchpoint } },
    { touchpoint: name, app: name, defaultPeriod: defaultPeriodOf(x.tool) },
  );
}
