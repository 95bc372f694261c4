/** App reviews of an app touchpoint: rising themes (feedback_themes) and ratings by version (feedback_summary). */
import { THRESHOLDS } from "../thresholds.ts";
import type { Finding } from "../types.ts";
import { call, type FindingContext, type Json, num } from "./common.ts";

const share = (x: number) => `${Math.round(x * 100)}%`;

/** What most of a theme's reviews are, in words; none said when that is "other" (or unknown). */
const INTENT_WORDS: Record<string, string> = {
  bug_report: "bug reports",
  feature_request: "feature requests",
  praise: "praise",
  question: "questions",
  price_complaint: "complaints about price",
};
const mostly = (intent: unknown) =>
  typeof intent === "string" && Object.hasOwn(INTENT_WORDS, intent) ? `, mostly ${INTENT_WORDS[intent]}` : "";

export function themeFindings(c: FindingContext, themes: Json, appId: string): Finding[] {
  const out: Finding[] = [];
  for (const app of themes.apps as Json[]) {
    for (const th of (app.themes as Json[]).filter((x) => x.rising)) {
      out.push({
        kind: "review_theme_rising",
        claim: `Reviews about "${th.label}" are rising in ${app.app.name}: ${num(th.reviews)} reviews, ${
          share(th.share)
        } of those analysed (${
          // none of the theme's reviews (or none analysed at all) the period before: it is new, not "was 0%"
          th.previous_share ? `was ${share(th.previous_share)}` : "new"})${mostly(th.dominant_intent)}.`,
        numbers: {
          app: app.app.name,
          theme: th.label,
          reviews: th.reviews,
          share: th.share,
          previous_share: th.previous_share,
        },
        weight: th.share_change ?? th.share,
        reproduce: [
          call("feedback_themes", { app: appId, period: c.period.period, rising_first: true, theme: th.id }),
        ],
      });
    }
  }
  return out;
}

/** A version rated clearly below the app's average in the period. */
export function versionFindings(c: FindingContext, summary: Json, appId: string): Finding[] {
  const t = THRESHOLDS.versions;
  const out: Finding[] = [];
  for (const app of summary.apps as Json[]) {
    const avg = app.average_rating?.value as number | null;
    if (avg === null) continue;
    for (const v of app.versions as Json[]) {
      if (v.reviews < t.min_reviews || avg - v.average_rating < t.min_drop) continue;
      out.push({
        kind: "rating_by_version",
        claim: `${app.app.name} ${v.version} is rated ${num(v.average_rating)} on average over ${
          num(v.reviews)
        } reviews, below the app's ${num(avg)} in the period.`,
        numbers: {
          app: app.app.name,
          version: v.version,
          average_rating: v.average_rating,
          app_average: avg,
        },
        weight: avg - v.average_rating,
        reproduce: [call("feedback_summary", { app: appId, period: c.period.period })],
      });
    }
  }
  return out;
}
