/**
 * When a change becomes a finding. Each threshold has a size part (enough traffic that the change is not
 * noise) and a change part; docs/reports.md lists them in words, and tests/lib/reports reads them from here.
 */
export const THRESHOLDS = {
  /** Visitors, sessions, pageviews against the period before. */
  headline: { min_count: 50, min_change: 0.2 },
  /** A page rose or fell: pageviews in the larger of the two periods, and the change either way. */
  pages: { min_pageviews: 20, min_difference: 10, rise: 0.5, fall: -0.33, max: 5 },
  /** A source or an AI answer engine sent more or fewer visitors (a new one: from none). */
  sources: { min_visitors: 10, rise: 0.5, fall: -0.33, max: 5 },
  ai_engines: { min_visitors: 5, rise: 0.5, fall: -0.33, max: 5 },
  /** A crawler started (none before) or stopped (none now) reading the site: requests in the other period. */
  crawlers: { min_requests: 5 },
  /** Verified crawlers reading pages robots.txt disallowed at the time: requests in the period. */
  robots_violations: { min_requests: 3, max: 5 },
  /** Requests under a crawler's name from addresses that failed its vendor's check. */
  spoofed: { min_requests: 5, max: 5 },
  /** What drove a headline change (behavior_explain_change): a segment's share of the difference. */
  drivers: { min_share: 0.25, max: 3 },
  /** Pages people visit that no crawler read in the last 90 days: visitors in the period. */
  not_crawled: { min_visitors: 10, max_named: 5 },
  /**
   * A Core Web Vital regressed on a page: enough measured page loads in both periods, and the p75 rating got
   * worse (good → needs improvement → poor) or the p75 grew by half while not good.
   */
  vitals: { min_page_loads: 20, min_growth: 0.5, max: 5 },
  /**
   * A saved funnel's overall conversion moved: visitors at step 1 in both periods, and the change in
   * percentage points and relative to before. At most `max_insights` saved funnels per report are asked.
   */
  funnels: { min_visitors: 20, min_points: 0.05, min_change: 0.2, max_insights: 5 },
  /** Review themes: the tool's own "rising" rule (feedback_themes); ratings by version: enough reviews. */
  versions: { min_reviews: 5, min_drop: 0.5 },
} as const;
