/**
 * The tools that come with a view (MCP Apps, io.modelcontextprotocol/ui): their answers are pictures. Shared
 * by the build (one HTML document per tool under build/views/) and the MCP server (tool _meta.ui and
 * resources/read).
 */
export const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const VIEW_MIME = "text/html;profile=mcp-app";

export const VIEW_TOOLS = [
  "behavior_overview",
  "behavior_trends",
  "behavior_pages",
  "behavior_sources",
  "behavior_funnel",
  "behavior_retention",
  "behavior_paths",
  "behavior_performance",
  "behavior_crawl_coverage",
  "behavior_crawler_access",
  "behavior_explain_change",
  "feedback_summary",
  "feedback_themes",
  "report_get",
] as const;

export type ViewTool = typeof VIEW_TOOLS[number];

export const viewUri = (tool: string) => `ui://behavior-read/${tool}.html`;

export const hasView = (tool: string): tool is ViewTool => (VIEW_TOOLS as readonly string[]).includes(tool);

/** Where the build writes the documents; read (never written) by the server at run time. */
export const VIEWS_DIR = new URL("../build/views/", import.meta.url);

/** The most one view may weigh (bytes), checked by the build. */
export const VIEW_MAX_BYTES = 300 * 1024;
