/**
 * The ready-made prompts the MCP server offers assistants that support prompts (spec: MCP server). A prompt
 * names only tools that exist.
 */

export interface ReadyPrompt {
  name: string;
  title: string;
  description: string;
  /** Optional arguments, all strings. */
  args: { name: string; description: string }[];
  text(args: Record<string, string | undefined>): string;
}

const site = (a: Record<string, string | undefined>) => a.touchpoint ? ` for ${a.touchpoint}` : "";
const tpArg = { name: "touchpoint", description: "website or app name, id or domain (optional with one)" };

export const PROMPTS: readonly ReadyPrompt[] = [
  {
    name: "weekly_report",
    title: "Weekly report",
    description:
      "The latest weekly intelligence report: its summary and findings, each with the call that shows it.",
    args: [tpArg],
    text: (a) =>
      `Present the latest weekly report${site(a)}. Call report_get with kind weekly${
        a.touchpoint ? ` and touchpoint ${a.touchpoint}` : ""
      } (reports_list lists older ones). ` +
      `Give its summary, then its findings grouped as they come, quoting each claim's numbers exactly and ` +
      `keeping the scope line; offer to run a finding's reproduce calls for detail. When no report is ` +
      `complete yet, call behavior_overview with period last_7_days, then behavior_pages and behavior_sources, ` +
      `and lead with the three changes that matter most against the previous week.`,
  },
  {
    name: "what_changed",
    title: "What changed and why",
    description:
      "Finds the biggest change against the previous period and explains it by channel, page and device.",
    args: [tpArg, { name: "period", description: "period to examine (default last_7_days)" }],
    text: (a) =>
      `Find what changed${site(a)} in ${
        a.period ?? "last_7_days"
      } against the period before. Call behavior_overview, ` +
      `then behavior_explain_change on the metric that moved most (visitors, sessions, pageviews, bounce_rate, ` +
      `or conversion_rate with its event), and behavior_trends on it to see when it moved. Say what changed, ` +
      `which segments drove it (with their contributions), and what is not explained by the data.`,
  },
  {
    name: "crawler_gaps",
    title: "Where crawlers miss the site",
    description:
      "Pages no search or AI crawler read, stale pages, what robots.txt blocks and who ignores it, crawl-to-referral.",
    args: [tpArg],
    text: (a) =>
      `Show where crawlers miss the site${site(a)}. Call behavior_crawl_coverage for last_30_days and ` +
      `behavior_crawler_access. List pages no crawler read and stale pages, name AI crawlers robots.txt blocks, and ` +
      `requests refused or failed per crawler, crawlers that ignored robots.txt, agents spoofing a crawler, and ` +
      `which AI vendors read much but send few visitors back. Suggest fixes in order of impact.`,
  },
  {
    name: "review_themes",
    title: "Review themes this month",
    description: "What app-store reviews talk about this month, rising themes first, with the rating trend.",
    args: [{ name: "app", description: "app name, id or store id (optional: every own app)" }],
    text: (a) =>
      `Summarize this month's app-store review themes${
        a.app ? ` for ${a.app}` : ""
      }. Call feedback_themes with ` +
      `period this_month and rising_first true, then feedback_summary for the same period. Lead with rising ` +
      `themes and their dominant intent, then the largest themes with their sentiment, the negative share ` +
      `against last month and ratings by version. Quote only the examples the tools give (followed apps have ` +
      `none), and say what share of reviews was analysed.`,
  },
  {
    name: "product_pulse",
    title: "Product pulse",
    description:
      "How the product is doing this month: headline numbers, the events people do, the trend, and what app reviews say.",
    args: [tpArg],
    text: (a) =>
      `Give a product pulse${site(a)} for this_month: call behavior_overview and behavior_events, then ` +
      `behavior_trends for the custom event that moved most; then feedback_summary and feedback_themes ` +
      `(rising_first true) for this_month. Connect what visitors do with what reviewers say (a rising crash ` +
      `theme beside a drop in an event, a version with a lower rating), in five bullets.`,
  },
];
