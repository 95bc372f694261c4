/**
 * A tool call in words, one describer for each place that shows one: a report finding's "how to see it" (the
 * app's report page, the report view for assistants) and a saved insight's summary. The question's name, the
 * website or app by its name, the period as dates or by its label, then what it is narrowed to: "Top pages ·
 * Acme site · 16–22 Nov 2026 · pages matching “/pricing”". Ids and the tools' parameter names stay in the
 * API; what only orders or pages the answer (sort, order, rising first, limit, offset) is no part of the
 * question and is not said.
 */
import { shownPath } from "../url_path.ts";
import { metricLabel } from "./labels.ts";
import { periodWords } from "./periods.ts";
import { choiceLabel, fieldLabel, isChoice, questionLabel } from "./questions.ts";

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** What the caller knows beyond the call: names for its ids and the words of its finding. */
export interface CallNames {
  /** A website's or app's name by its id; a touchpoint without one is left out. */
  touchpoint?: (id: string) => string | undefined;
  /** An app's name by its id; "the app" without one. */
  app?: (id: string) => string | undefined;
  /** The theme's name as its finding says it, else the theme id in words. */
  theme?: string;
  /** The period the tool asks when the call names none (a saved insight's tool default). */
  defaultPeriod?: string;
}

/** "1d" → "1 day", "30m" → "30 minutes". */
function windowWords(w: string): string {
  const m = /^(\d+)([mhd])$/.exec(w);
  if (!m) return w;
  const unit = { m: "minute", h: "hour", d: "day" }[m[2] as "m" | "h" | "d"];
  return `${m[1]} ${unit}${m[1] === "1" ? "" : "s"}`;
}

type Step = { page?: unknown; event?: unknown; property?: unknown; value?: unknown };
const stepWords = (s: Step) =>
  `${typeof s.page === "string" ? shownPath(s.page) : String(s.event ?? "?")}${
    s.property === undefined ? "" : ` with ${String(s.property)} = ${String(s.value)}`
  }`;

/** A theme id ("emergent:saved addresses", "sync_data_loss") in words, when the finding does not name it. */
const themeWords = (id: string) => id.replace(/^emergent:/, "").replaceAll("_", " ");

/** A value as people read it: a choice in words ("lowest first"), a page decoded, any other as sent. */
const valueText = (v: unknown) => {
  const s = String(v);
  if (s.startsWith("/")) return shownPath(s);
  return isChoice(s) ? choiceLabel(s).toLowerCase() : s;
};

/** Inputs said before the others (touchpoint, app, period), or not at all: what only orders or pages. */
const NOT_IN_TURN = new Set([
  "touchpoint",
  "app",
  "period",
  "sort_by",
  "order",
  "rising_first",
  "limit",
  "offset",
]);
/** behavior_trends' three inputs, said together as one phrase. */
const TREND = new Set(["metric", "event", "interval"]);

export function callWords(call: ToolCall, names: CallNames = {}): string {
  const i = call.input;
  const trends = call.tool === "behavior_trends";
  const metric = choiceLabel(String(i.metric ?? "visitors"));
  // a trend is named by what it counts ("Sessions over time"), not always "Visitors over time"
  const parts = [trends ? `${metric} over time` : questionLabel(call.tool)];
  if (typeof i.touchpoint === "string") {
    const name = names.touchpoint?.(i.touchpoint);
    if (name) parts.push(name);
  }
  if (typeof i.app === "string") parts.push(names.app?.(i.app) ?? "the app");
  const period = typeof i.period === "string" && i.period ? i.period : names.defaultPeriod;
  if (period) parts.push(periodWords(period));
  if (trends) {
    // "sessions of pageviews" read as a count of something else: the event only when one was chosen
    const per = `per ${choiceLabel(String(i.interval ?? "day")).toLowerCase()}`;
    const counted = typeof i.event === "string"
      ? `${metric.toLowerCase()} of ${i.event} `
      : metric === choiceLabel("events")
      ? "pageviews "
      : "";
    parts.push(counted + per);
  }
  for (const [k, v] of Object.entries(i)) {
    if (NOT_IN_TURN.has(k) || (trends && TREND.has(k)) || v === undefined || v === null) continue;
    const text = inputWords(call.tool, k, v, names);
    if (text) parts.push(text);
  }
  return parts.join(" · ");
}

/** One input in words; none for a flag that is off or an input that is no plain value. */
function inputWords(tool: string, k: string, v: unknown, names: CallNames): string | null {
  switch (k) {
    case "search":
      return tool === "behavior_pages"
        ? `pages matching “${shownPath(String(v))}”`
        : `matching “${String(v)}”`;
    case "page":
      return `page ${shownPath(String(v))}`;
    case "metric":
      return metricLabel(String(v)).toLowerCase();
    case "interval":
      return `per ${String(v)}`;
    case "by":
    case "split_by":
      return `by ${choiceLabel(String(v)).toLowerCase()}`;
    case "theme":
      return `theme “${names.theme ?? themeWords(String(v))}”`;
    case "cohort":
      return `only the cohort “${String(v)}”`;
    case "conversion_window":
      return `converting within ${windowWords(String(v))}`;
    case "steps":
      return Array.isArray(v) ? (v as Step[]).map(stepWords).join(" → ") : null;
  }
  if (typeof v === "boolean") return v ? fieldLabel(k).toLowerCase() : null;
  if (typeof v === "string" || typeof v === "number") {
    return `${metricLabel(k).toLowerCase()} ${valueText(v)}`;
  }
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
    return `${metricLabel(k).toLowerCase()} ${v.map(valueText).join(", ")}`;
  }
  return null; // a nested input never shows as JSON
}
