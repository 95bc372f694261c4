/**
 * What an assistant shows a person for each tool: a title in plain words and a small icon per family
 * (behavior, crawlers, reviews, reports, account). Icons are inline SVG data URIs, so a client fetches
 * nothing from anywhere to show them.
 */
export const TOOL_TITLES: Record<string, string> = {
  account_overview: "Account overview: websites, apps and allowances",
  behavior_overview: "Website or app at a glance",
  behavior_trends: "Trend over time",
  behavior_funnel: "Funnel conversion",
  behavior_explain_change: "Why a number changed",
  behavior_pages: "Pages",
  behavior_events: "Events",
  behavior_event_properties: "Event properties",
  behavior_paths: "Paths before and after a page",
  behavior_sources: "Traffic sources",
  behavior_retention: "Retention by cohort",
  behavior_sessions: "Sessions",
  behavior_saved: "Saved insights and dashboards",
  behavior_features: "Feature adoption",
  behavior_performance: "Page speed (Core Web Vitals)",
  behavior_crawl_coverage: "Crawler coverage: who read which pages",
  behavior_crawler_access: "Crawler access and robots.txt",
  feedback_summary: "App review summary",
  feedback_themes: "App review themes",
  feedback_reviews: "App reviews",
  reports_list: "Reports",
  report_get: "Report",
};

/** A readable title for any tool; a tool added without one still reads as words. */
export function toolTitle(name: string): string {
  const t = TOOL_TITLES[name];
  if (t) return t;
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const svg = (body: string) =>
  `data:image/svg+xml;base64,${
    btoa(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#4f46e5" ` +
        `stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`,
    )
  }`;

const ICONS = {
  behavior: svg('<path d="M3 3v18h18"/><path d="M7 15l4-4 3 3 5-6"/>'),
  crawler: svg('<circle cx="11" cy="11" r="7"/><path d="M21 21l-4.3-4.3"/>'),
  feedback: svg('<path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/>'),
  report: svg('<path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z"/><path d="M14 2v6h6"/>'),
  account: svg('<circle cx="12" cy="8" r="4"/><path d="M4 21a8 8 0 0 1 16 0"/>'),
};

/** The MCP `icons` of a tool (one SVG, any size). */
export function toolIcons(name: string): { src: string; mimeType: string; sizes: string[] }[] {
  const family = name.includes("crawl")
    ? "crawler"
    : name.startsWith("feedback")
    ? "feedback"
    : name.startsWith("report")
    ? "report"
    : name.startsWith("account")
    ? "account"
    : "behavior";
  return [{ src: ICONS[family], mimeType: "image/svg+xml", sizes: ["any"] }];
}
