/** What a stored intelligence report is (docs/reports.md). Immutable once `complete`. */
import type { EnvName } from "../store/records.ts";
import type { Scope } from "../answers/schema.ts";

export const REPORT_KINDS = ["weekly", "monthly"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/** The tool call that shows a finding: run it with a read key (or an assistant) to see the same numbers. */
export interface Reproduce {
  tool: string;
  input: Record<string, unknown>;
}

export type FindingKind =
  | "headline_change"
  | "change_driver"
  | "page_rose"
  | "page_fell"
  | "source_change"
  | "ai_engine_change"
  | "crawler_started"
  | "crawler_stopped"
  | "pages_not_crawled"
  | "robots_violation"
  | "spoofed_agent"
  | "vitals_regression"
  | "review_theme_rising"
  | "rating_by_version"
  | "funnel_change";

export interface Finding {
  kind: FindingKind;
  /** One sentence with its numbers, e.g. "/pricing: 1,204 pageviews, up from 598 (+101%)." */
  claim: string;
  /** The numbers the claim states, by name. */
  numbers: Record<string, number | string | null>;
  /** For ordering: how large the finding is (relative change, or share); larger first within a section. */
  weight: number;
  reproduce: Reproduce[];
}

/** Chart data a report page draws (lib/charts): daily visitors against the period before, top pages. */
export interface ReportCharts {
  visitors_by_day: { date: string; value: number }[];
  previous_by_day: { date: string; value: number }[];
  top_pages: { label: string; value: number; previous: number | null }[];
  /** An app's reviews in the period by star (1 to 5), over its own store listings. */
  ratings?: { label: string; value: number }[];
  /** An app's reviews in the period by app version, with the average rating of each. */
  versions?: { label: string; value: number; average_rating: number | null }[];
}

/** An app's review figures in the period against the one before (reports of apps; absent for websites). */
export interface ReviewFigures {
  reviews: number;
  reviews_before: number | null;
  average_rating: number | null;
  average_rating_before: number | null;
}

export interface Report {
  id: string;
  org: string;
  env: EnvName;
  touchpoint: string;
  touchpoint_name: string;
  kind: ReportKind;
  /** "2026-W47" (ISO week) or "2026-11". */
  period_key: string;
  /** The period as the tools take it: "2026-11-16..2026-11-22" or "2026-11". */
  period: string;
  previous_period: string;
  scope: Scope;
  generated_at: string;
  /** "schedule" (the weekly or monthly job) or "request" (generate now, in the app). */
  trigger: "schedule" | "request";
  headline: string;
  /** Three to five sentences, from templates over the findings (no external service). */
  summary: string;
  findings: Finding[];
  charts: ReportCharts;
  /** An app's reviews (apps only): what an app's report leads with when it sends no events. */
  reviews?: ReviewFigures;
  /** What generation could not ask (a tool that failed), so a reader knows what the report leaves out. */
  notes: string[];
}

/** The claim on a (touchpoint, kind, period) slot while one instance generates its report. */
export interface ReportClaim {
  state: "running";
  holder: string;
  until: number;
}

export type ReportSlot = ({ state: "complete" } & Report) | ReportClaim;
