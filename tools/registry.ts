/**
 * Every read tool, once. The HTTP API (`/v1/read`) and the MCP server (`/mcp`) both take their tools from
 * here, so an answer is the same through either face by construction. A new tool is one file beside this
 * one and one line in TOOLS (and in INSIGHT_TOOLS when a saved insight may ask it). Nothing a tool imports
 * may import this file back: the pipeline passes the lists in (pipeline/run.ts).
 */
import type { Tool } from "../toolkit/tool.ts";
import { invalid } from "../lib/errors.ts";
import accountOverview from "./account_overview.ts";
import behaviorOverview from "./behavior_overview.ts";
import behaviorTrends from "./behavior_trends.ts";
import behaviorFunnel from "./behavior_funnel.ts";
import behaviorExplainChange from "./behavior_explain_change.ts";
import behaviorPages from "./behavior_pages.ts";
import behaviorEvents from "./behavior_events.ts";
import behaviorEventProperties from "./behavior_event_properties.ts";
import behaviorPaths from "./behavior_paths.ts";
import behaviorSources from "./behavior_sources.ts";
import behaviorRetention from "./behavior_retention.ts";
import behaviorSessions from "./behavior_sessions.ts";
import behaviorSaved from "./behavior_saved.ts";
import behaviorFeatures from "./behavior_features.ts";
import behaviorPerformance from "./behavior_performance.ts";
import behaviorCrawlCoverage from "./behavior_crawl_coverage.ts";
import behaviorCrawlerAccess from "./behavior_crawler_access.ts";
import feedbackSummary from "./feedback_summary.ts";
import feedbackThemes from "./feedback_themes.ts";
import feedbackReviews from "./feedback_reviews.ts";
import reportsList from "./reports_list.ts";
import reportGet from "./report_get.ts";

export const TOOLS: readonly Tool[] = [
  accountOverview,
  behaviorOverview,
  behaviorTrends,
  behaviorFunnel,
  behaviorExplainChange,
  behaviorPages,
  behaviorEvents,
  behaviorEventProperties,
  behaviorPaths,
  behaviorSources,
  behaviorRetention,
  behaviorSessions,
  behaviorSaved,
  behaviorFeatures,
  behaviorPerformance,
  behaviorCrawlCoverage,
  behaviorCrawlerAccess,
  feedbackSummary,
  feedbackThemes,
  feedbackReviews,
  reportsList,
  reportGet,
];

/**
 * The tools a saved insight may ask: the behavior and feedback questions; not the account, not the saved
 * items themselves (an insight of behavior_saved would run insights), not the reports.
 */
const NOT_FOR_INSIGHTS: ReadonlySet<Tool> = new Set([accountOverview, behaviorSaved, reportsList, reportGet]);
export const INSIGHT_TOOLS: readonly Tool[] = TOOLS.filter((t) => !NOT_FOR_INSIGHTS.has(t));

export function toolByName(name: string, tools: readonly Tool[] = TOOLS): Tool | undefined {
  return tools.find((t) => t.name === name);
}

/**
 * Narrows the list to the named tools (`?tools=a,b`, any case). A name that is no tool, or a list naming none,
 * is a 422 saying so: a connection that silently offers fewer tools than asked looks like it works.
 */
export function narrowTools(
  names: string | null | undefined,
  tools: readonly Tool[] = TOOLS,
): readonly Tool[] {
  if (names === null || names === undefined) return tools;
  const wanted = new Set(names.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean));
  if (!wanted.size) throw invalid("tools: name at least one tool, separated by commas, or leave tools out");
  const unknown = [...wanted].filter((n) => !tools.some((t) => t.name === n));
  if (unknown.length) {
    const list = unknown.slice(0, 5).map((n) => `"${n.slice(0, 60).toWellFormed()}"`).join(", ") +
      (unknown.length > 5 ? ` and ${unknown.length - 5} more` : "");
    throw invalid(`tools: no tool named ${list}; the tools are ${tools.map((t) => t.name).join(", ")}`);
  }
  return tools.filter((t) => wanted.has(t.name));
}
