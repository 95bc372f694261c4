/**
 * Names as people read them: a metric's or column's label ("Bounce rate", not bounce_rate), the identifiers
 * answers use as values in words ("AI training"), an environment's name. Pure functions, shared by the app's
 * pages and the assistant views (views/).
 */

/** Labels of the names answers use; any other name is turned into words by `metricLabel`. */
const LABELS: Record<string, string> = {
  visitors: "Visitors",
  engaged_visitors: "Engaged visitors",
  sessions: "Sessions",
  pageviews: "Pageviews",
  views_per_session: "Views per session",
  bounce_rate: "Bounce rate",
  session_duration_s: "Session duration",
  engagement_time_s: "Engagement time",
  scroll_depth_percent: "Scroll depth",
  exit_rate: "Exit rate",
  rage_clicks: "Rage clicks",
  overall_conversion: "Overall conversion",
  conversion_rate: "Conversion rate",
  conversion_from_first: "Conversion from step 1",
  conversion_from_previous: "Conversion from the step before",
  drop_off_rate: "Drop-off rate",
  dropped_off: "Dropped off",
  time_from_previous_median_s: "Median time from the step before",
  splits_withheld: "Groups withheld (fewer than 5 visitors)",
  previous_visitors: "Visitors in the period before",
  average_rating: "Average rating",
  reviews: "Reviews",
  negative_share: "Negative share",
  lcp_ms: "Largest contentful paint",
  inp_ms: "Interaction to next paint",
  known_pages: "Known pages",
  pages_read_by_search: "Pages read by search engines",
  pages_read_by_ai_verified: "Pages read by verified AI crawlers",
  pages_never_read: "Pages never read",
  stale_pages: "Stale pages",
  total: "Total",
  events: "Events",
  count: "Count",
  requests: "Requests",
  entries: "Entries",
  exits: "Exits",
  clicks: "Clicks",
  returned: "Returned",
  name: "Name",
  page: "Page",
  bucket: "When",
  step: "Step",
  source: "Source",
  channel: "Channel",
  country: "Country",
  device: "Device",
  browser: "Browser",
  event: "Event",
  cohort: "Cohort",
  value: "Value",
  label: "Label",
  series: "Over time",
  pages: "Pages",
  steps: "Steps",
  channels: "Channels",
  ai_answer_engines: "AI answer engines",
  campaigns: "Campaigns",
  referrers: "Referrers",
  cohorts: "Cohorts",
  top_pages: "Top pages",
  properties: "Properties",
  paths: "Paths",
  features: "Features",
  crawlers: "Crawlers",
  themes: "Themes",
  apps: "Apps",
};

/** A metric's or column's name in words: its label, or the name with its unit suffix dropped, capitalised. */
export function metricLabel(name: string): string {
  if (Object.hasOwn(LABELS, name)) return LABELS[name]; // own entries: "constructor" is a name like others
  const words = name.replace(/^\$/, "").replace(/_(s|ms|percent)$/, "").replaceAll("_", " ").trim()
    .replace(/\b(ai|seo)\b/g, (w) => w.toUpperCase());
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Words for the values answers name as identifiers: crawler kinds, Core Web Vitals ratings, review intents. */
const VALUE_WORDS: Record<string, string> = {
  search_engine: "search engine",
  ai_training: "AI training",
  ai_search: "AI search",
  ai_assistant: "AI assistant",
  seo_tool: "SEO tool",
  social_preview: "social preview",
  feed_fetcher: "feed fetcher",
  security_scanner: "security scanner",
  needs_improvement: "needs improvement",
  // a review's intent (feedback_themes' dominant_intent)
  bug_report: "bug report",
  feature_request: "feature request",
  price_complaint: "complaint about price",
};

/** A value in words when it is one of those identifiers; any other (an event's name, a page) as it is. */
export const valueWords = (v: string) => (Object.hasOwn(VALUE_WORDS, v) ? VALUE_WORDS[v] : v);

/** An environment as the pages name it: "Production", "Staging", "Development". */
export const environmentLabel = (env: string) => env.charAt(0).toUpperCase() + env.slice(1);
