/**
 * Every read tool, once. The HTTP API (`/v1/read`) and the MCP server (`/mcp`) both take their tools from
 * here, so an answer is the same through either face by construction.
 */
import { z } from "zod";
import type { Tool } from "./types.ts";
import accountOverview from "./account_overview.ts";
import behaviorOverview from "./behavior_overview.ts";
import behaviorTrends from "./behavior_trends.ts";
import behaviorPages from "./behavior_pages.ts";
import behaviorEvents from "./behavior_events.ts";
import behaviorEventProperties from "./behavior_event_properties.ts";
import behaviorSources from "./behavior_sources.ts";
import behaviorSessions from "./behavior_sessions.ts";
import behaviorCrawlCoverage from "./behavior_crawl_coverage.ts";
import behaviorCrawlerAccess from "./behavior_crawler_access.ts";
import feedbackSummary from "./feedback_summary.ts";
import feedbackThemes from "./feedback_themes.ts";
import feedbackReviews from "./feedback_reviews.ts";

export const TOOLS: readonly Tool[] = [
  accountOverview,
  behaviorOverview,
  behaviorTrends,
  behaviorPages,
  behaviorEvents,
  behaviorEventProperties,
  behaviorSources,
  behaviorSessions,
  behaviorCrawlCoverage,
  behaviorCrawlerAccess,
  feedbackSummary,
  feedbackThemes,
  feedbackReviews,
];

export function toolByName(name: string, tools: readonly Tool[] = TOOLS): Tool | undefined {
  return tools.find((t) => t.name === name);
}

/** Narrows the list to the named tools (`?tools=a,b`); unknown names are ignored. */
export function narrowTools(
  names: string | null | undefined,
  tools: readonly Tool[] = TOOLS,
): readonly Tool[] {
  if (!names) return tools;
  const wanted = new Set(names.split(",").map((s) => s.trim()).filter(Boolean));
  return tools.filter((t) => wanted.has(t.name));
}

export interface ToolListing {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

const listings = new WeakMap<Tool, ToolListing>();

/** The tool as listed: JSON Schema of its input and output, built once from its zod schemas. */
export function listing(tool: Tool): ToolListing {
  let l = listings.get(tool);
  if (!l) {
    l = {
      name: tool.name,
      description: tool.description,
      input_schema: z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Record<
        string,
        unknown
      >,
      output_schema: z.toJSONSchema(tool.output, { io: "output", unrepresentable: "any" }) as Record<
        string,
        unknown
      >,
    };
    listings.set(tool, l);
  }
  return l;
}
