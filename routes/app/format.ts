/**
 * Figures as people read them: a metric's name from its label ("Bounce rate", not bounce_rate), rates as
 * percentages, seconds as durations, counts with thousands separators, changes signed ("+4.2%", "−11.6%"),
 * and "547 vs 619 (−11.6%)" with its spaces. Pure functions, shared by dashboards, insights and reports.
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

export type Unit = "percent" | "fraction" | "points" | "seconds" | "ms" | "count" | "decimal" | "change";

/** How a named figure is measured, from its name (answers name units in their field names). */
export function unitOf(name: string): Unit {
  // answers use `change` for a relative change only (-0.25: 25% down)
  if (name === "change") return "change";
  if (name.endsWith("_percent")) return "percent";
  if (/(_rate|^rate|conversion|^share|_share|conversion_from_first|conversion_from_previous)$/.test(name)) {
    return "fraction";
  }
  // a share now minus the share before (feedback_themes' share_change): percentage points
  if (name === "share_change") return "points";
  if (name.endsWith("_ms")) return "ms";
  if (name.endsWith("_s")) return "seconds";
  if (/per_|average|_avg|cls/.test(name)) return "decimal";
  return "count";
}

const thousands = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });

/** Seconds as a duration: "45 s", "1 min 22 s", "2 h 5 min". */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  // no-break spaces: a duration is one figure, never split over two lines of a narrow column ("1 min 59 / s")
  const _ = "\u00a0";
  if (s < 60) return `${seconds < 10 && seconds % 1 ? seconds.toFixed(1) : s}${_}s`;
  if (s < 3600) return `${Math.floor(s / 60)}${_}min${s % 60 ? `${_}${s % 60}${_}s` : ""}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}${_}h${m % 60 ? `${_}${m % 60}${_}min` : ""}`;
}

/** One value as people read it; null is a dash, a text (e.g. "fewer than 5") stays as it is. */
export function formatValue(name: string, v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v !== "number") return String(v);
  switch (unitOf(name)) {
    case "fraction":
      return `${thousands(v * 100, 1)}%`;
    case "points":
      return `${v > 0 ? "+" : v < 0 ? "−" : "±"}${thousands(Math.abs(v) * 100, 1)}\u00a0pts`;
    case "percent":
      return `${thousands(v, 1)}%`;
    case "seconds":
      return duration(v);
    case "ms":
      return v >= 1000 ? `${thousands(v / 1000, v < 10_000 ? 1 : 0)} s` : `${thousands(v)} ms`;
    case "change":
      return signedChange(v);
    case "decimal":
      return thousands(v, 2);
    default:
      return thousands(v, Number.isInteger(v) ? 0 : 1);
  }
}

/** A relative change (0.042 = 4.2 %) signed, with a real minus sign: "+4.2%", "−11.6%", "±0%". */
export function signedChange(change: number): string {
  const pct = Math.round(change * 1000) / 10;
  if (pct === 0) return "±0%";
  return `${pct > 0 ? "+" : "−"}${thousands(Math.abs(pct), 1)}%`;
}

/** A difference in the unit of `name`, signed with a real minus sign: "+16", "−1,204", "+7.6 points" for a rate. */
export function signedDifference(name: string, d: number): string {
  const unit = unitOf(name);
  const text = unit === "fraction"
    ? `${thousands(Math.abs(d) * 100, 1)} points`
    : formatValue(name, Math.abs(d));
  return /[1-9]/.test(text) ? `${d > 0 ? "+" : "−"}${text}` : `±${text}`;
}

/**
 * An instant (ISO, UTC) as a compact time in `timeZone`, which the column's header names: "29 Nov, 18:31".
 * Day and month stay together (a no-break space), so a narrow column breaks only before the time.
 */
export function shortTime(iso: string, timeZone = "UTC"): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const opts = {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  } as const;
  let text: string;
  try {
    text = at.toLocaleString("en-GB", { ...opts, timeZone });
  } catch { // not a time zone: the time as stored
    text = at.toLocaleString("en-GB", { ...opts, timeZone: "UTC" });
  }
  return text.replace(" ", "\u00a0");
}

const TIME_IN_TEXT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/** A notice's times ("data fresh to 2026-11-29T19:34:32.181Z") compact in `timeZone`, which it names. */
export const timesInText = (text: string, timeZone: string) =>
  text.replace(TIME_IN_TEXT, (t) => `${shortTime(t, timeZone)} (${timeZone})`);

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

/** "547 vs 619 (−11.6%)": a figure against the period before, spaced. */
export function versus(name: string, value: unknown, previous: unknown, change?: number | null): string {
  const base = `${formatValue(name, value)} vs ${formatValue(name, previous)}`;
  return change === null || change === undefined ? base : `${base} (${signedChange(change)})`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A day (of an ISO instant, UTC) as people write it, kept on one line by no-break spaces: "29 Nov 2026". */
export function shortDate(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return [at.getUTCDate(), MONTHS[at.getUTCMonth()], at.getUTCFullYear()].join("\u00a0");
}

/** An environment as the pages name it: "Production", "Staging", "Development". */
export const environmentLabel = (env: string) => env.charAt(0).toUpperCase() + env.slice(1);
