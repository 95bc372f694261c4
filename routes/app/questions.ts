/**
 * The read tools an insight asks, in people's words: a name per question ("Visitors over time", "Funnel"), a
 * label per input, words for the choices, and an insight summarised in one line. The tools' own ids and
 * parameter names stay in the API; the app shows these.
 */
import type { SavedInsight } from "../../lib/saved/records.ts";
import type { Touchpoint } from "../../lib/store/records.ts";
import { metricLabel } from "../../lib/format/labels.ts";
import { periodLabel } from "./period_picker.tsx";
import { insightTools } from "../../pipeline/saved_insights.ts";
import { listing } from "../../pipeline/listing.ts";
import { DEFAULT_PERIOD } from "../../pipeline/context.ts";

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
  QUESTIONS[tool]?.label ?? metricLabel(tool.replace(/^(behavior|feedback)_/, ""));

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
export const choiceLabel = (v: string) => (Object.hasOwn(CHOICES, v) ? CHOICES[v] : metricLabel(v));

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

type Step = { page?: string; event?: string };

/** An insight in one line of words: its question, website or app, period and what it is narrowed to. */
export function insightSummary(x: SavedInsight, tps: Touchpoint[]): string {
  const i = x.input as Record<string, unknown>;
  const parts = [questionLabel(x.tool)];
  const tp = tps.find((t) => t.id === x.touchpoint);
  if (tp) parts.push(tp.name);
  parts.push(periodLabel(typeof i.period === "string" ? i.period : defaultPeriodOf(x.tool)));
  if (Array.isArray(i.steps)) {
    parts.push((i.steps as Step[]).map((s) => s.page ?? s.event ?? "?").join(" → "));
  }
  if (x.tool === "behavior_trends") {
    parts.push(
      `${choiceLabel(String(i.metric ?? "visitors")).toLowerCase()} of ${i.event ?? "pageviews"} per ${
        choiceLabel(String(i.interval ?? "day")).toLowerCase()
      }`,
    );
  }
  for (const [k, v] of Object.entries(i)) {
    const said = [
      "period",
      "steps",
      ...(x.tool === "behavior_trends" ? ["metric", "event", "interval"] : []),
    ];
    if (said.includes(k)) continue;
    if (k === "cohort") parts.push(`only the cohort “${v}”`);
    else if (typeof v === "boolean") v && parts.push(fieldLabel(k).toLowerCase());
    else {parts.push(`${fieldLabel(k).toLowerCase()}: ${
        Array.isArray(v)
          ? v.map((o) => choiceLabel(String(o))).join(", ")
          : typeof v === "string" && /^[a-z_]+$/.test(v)
          ? choiceLabel(v).toLowerCase()
          : String(v)
      }`);}
  }
  return parts.join(" · ");
}
