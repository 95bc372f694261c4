/**
 * The read tools' questions in people's words: a name per question ("Visitors over time", "Funnel"), a label
 * per input and words for the choices. The tools' own ids and parameter names stay in the API; the app's
 * pages, the assistant views and the words for a call (call_words.ts) show these.
 */
import { metricLabel } from "./labels.ts";

export const QUESTIONS: Record<string, { label: string; about: string }> = {
  behavior_overview: {
    label: "Headline numbers",
    about: "Visitors, sessions, pageviews, bounce rate and time on site, against the period before.",
  },
  behavior_trends: {
    label: "Visitors over time",
    about: "One event or its visitors per hour, day, week or month.",
  },
  behavior_funnel: {
    label: "Funnel",
    about: "How many visitors went through pages and events in order, and where they dropped off.",
  },
  behavior_explain_change: {
    label: "What changed and why",
    about: "Which channels, pages, countries or devices moved a metric since the period before.",
  },
  behavior_pages: {
    label: "Top pages",
    about: "Every page with its views, visitors, engagement time, scroll depth and exits.",
  },
  behavior_events: {
    label: "Events",
    about: "The events sent in the period, how often and by how many visitors.",
  },
  behavior_event_properties: {
    label: "Event properties",
    about: "The properties one event carried and their most common values.",
  },
  behavior_paths: {
    label: "Paths",
    about: "Where visits go after a page or an event, or where they came from.",
  },
  behavior_sources: {
    label: "Where visitors come from",
    about: "Channels, AI answer engines, campaigns and referrers.",
  },
  behavior_retention: {
    label: "Who comes back",
    about: "Visitors grouped by their first visit, and how many returned later.",
  },
  behavior_sessions: {
    label: "Example visits",
    about: "Individual recent visits: pages seen, source, country and device.",
  },
  behavior_features: {
    label: "Buttons and links used",
    about: "Clicks and rage clicks per element and page.",
  },
  behavior_performance: { label: "Page speed", about: "Core Web Vitals measured in visitors' browsers." },
  behavior_crawl_coverage: {
    label: "Crawlers reading the site",
    about: "Which search and AI crawlers read which pages.",
  },
  behavior_crawler_access: {
    label: "Crawler access (robots.txt)",
    about: "What the site's robots.txt allows each crawler.",
  },
  feedback_summary: {
    label: "App reviews: summary",
    about: "Review volume, average rating and sentiment per app.",
  },
  feedback_themes: {
    label: "App reviews: themes",
    about: "What reviews talk about, and which themes are rising.",
  },
  feedback_reviews: { label: "App reviews: individual reviews", about: "Individual reviews, newest first." },
};

export const questionLabel = (tool: string) =>
  QUESTIONS[tool]?.label ?? metricLabel(tool.replace(/^(behavior|feedback|report)_/, ""));

const FIELDS: Record<string, string> = {
  period: "Period",
  cohort: "Only visitors in the cohort",
  event: "Event",
  metric: "Count",
  interval: "Per",
  page: "Page",
  split_by: "Split by",
  property: "Event property",
  property_value: "Property value",
  conversion_window: "Time to convert",
  steps: "Steps",
  sort_by: "Sort by",
  order: "Order",
  search: "Search",
  limit: "Rows to show",
  offset: "Rows to skip",
  custom_only: "Only your own events (not the automatic ones)",
  values_limit: "Values per property",
  direction: "Direction",
  depth: "Steps to follow",
  include_events: "Count custom events as steps",
  conversion_event: "Conversion event",
  cohort_event: "Start with the event",
  return_event: "Coming back means the event",
  dimensions: "Explain by",
  segments_per_dimension: "Segments per dimension",
  source: "Source",
  country: "Country (two letters, e.g. DE)",
  device: "Device",
  by: "Group by",
  crawler: "Crawler",
  stale_after_days: "Stale after (days)",
  app: "App",
  rising_first: "Rising themes first",
  theme: "Theme",
  rating: "Rating",
  intent: "Intent",
  version: "App version",
  language: "Language",
};

// own entries only: a field or choice named "constructor" must not find Object.prototype's member
export const fieldLabel = (name: string) => (Object.hasOwn(FIELDS, name) ? FIELDS[name] : metricLabel(name));

const CHOICES: Record<string, string> = {
  desc: "Highest first",
  asc: "Lowest first",
  after: "After it",
  before: "Before it",
  hour_of_day: "Hour of day",
  day_of_week: "Day of week",
};
export const choiceLabel = (v: string) => (isChoice(v) ? CHOICES[v] : metricLabel(v));
/** Whether a value is one of the choices above (an event's or page's name never reads as one). */
export const isChoice = (v: string) => Object.hasOwn(CHOICES, v);
