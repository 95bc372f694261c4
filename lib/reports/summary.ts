/**
 * The report's headline and summary, written by templates from the headline numbers and the findings (no
 * external service): three to five sentences, the largest findings first, and a plain "nothing cleared the
 * thresholds" on a quiet week.
 */
import type { Finding, FindingKind, ReviewFigures } from "./types.ts";
import { type Json, movement, num, pct } from "./findings/common.ts";
import { periodText, periodTitle, type ReportPeriod } from "./periods.ts";

const SECTION_ORDER: FindingKind[] = [
  "headline_change",
  "change_driver",
  "page_rose",
  "page_fell",
  "ai_engine_change",
  "source_change",
  "crawler_started",
  "crawler_stopped",
  "robots_violation",
  "spoofed_agent",
  "pages_not_crawled",
  "vitals_regression",
  "review_theme_rising",
  "rating_by_version",
  "funnel_change",
];

export const sectionRank = (k: FindingKind) => SECTION_ORDER.indexOf(k);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function periodWords(p: ReportPeriod): string {
  return p.kind === "weekly" ? `the week of ${periodText(p.period)}` : periodText(p.period);
}

/** One line for lists: the visitors and how many findings. */
export function headline(
  p: ReportPeriod,
  overview: Json,
  findings: Finding[],
  reviews: ReviewFigures | null = null,
): string {
  const v = overview.visitors as { value: number | null; change: number | null };
  const visitors = !v.value && reviews
    ? reviewWords(reviews)
    : v.value === null
    ? "no visitors"
    : `${num(v.value)} visitors${v.change === null ? "" : ` (${pct(v.change)})`}`;
  const what = findings.length ? plural(findings.length, "finding") : "a quiet period, no findings";
  return `${periodTitle(p.kind, p.period)}: ${visitors}; ${what}.`;
}

/** "44 reviews, average rating 2.91" */
const reviewWords = (r: ReviewFigures) =>
  `${plural(r.reviews, "review")}${
    r.average_rating === null ? "" : `, average rating ${num(r.average_rating)}`
  }`;

export function summarize(
  p: ReportPeriod,
  touchpoint: string,
  overview: Json,
  findings: Finding[],
  reviews: ReviewFigures | null = null,
): string {
  const sentences: string[] = [];
  const v = overview.visitors as { value: number | null; previous: number | null };
  const pv = overview.pageviews as { value: number | null };
  const than = p.kind === "weekly" ? "the week before" : "the month before";
  if (reviews) {
    // an app: its reviews lead; visitors only when it sends events
    const before = reviews.reviews_before === null ? "" : ` (${num(reviews.reviews_before)} ${than})`;
    const rating = reviews.average_rating === null
      ? ""
      : `, with an average rating of ${num(reviews.average_rating)}${
        reviews.average_rating_before === null ? "" : ` (${num(reviews.average_rating_before)} ${than})`
      }`;
    sentences.push(
      `In ${periodWords(p)}, ${touchpoint} got ${plural(reviews.reviews, "review")}${before}${rating}.`,
    );
    if (v.value) sentences.push(`It had ${num(v.value)} visitors and ${num(pv.value ?? 0)} pageviews.`);
  } else if (!v.value) {
    sentences.push(`${touchpoint} had no visitors in ${periodWords(p)}.`);
  } else {
    sentences.push(
      `In ${periodWords(p)}, ${touchpoint} had ${num(v.value)} visitors${
        v.previous ? `, ${movement(v.value, v.previous).replace("the period before", than)}` : ""
      }, and ${num(pv.value ?? 0)} pageviews.`,
    );
  }
  const ordered = [...findings].sort((a, b) => b.weight - a.weight);
  const lead = ordered.filter((f) => f.kind !== "headline_change").slice(0, 2);
  for (const f of lead) sentences.push(sentenceOf(f));
  const rest = findings.length - lead.length - findings.filter((f) => f.kind === "headline_change").length;
  if (rest > 0) {
    const counts = new Map<string, number>();
    for (const f of findings) {
      if (f.kind === "headline_change" || lead.includes(f)) continue;
      counts.set(GROUP[f.kind], (counts.get(GROUP[f.kind]) ?? 0) + 1);
    }
    const parts = [...counts].map(([g, n]) => plural(n, g));
    sentences.push(`The report also has ${parts.join(", ")}.`);
  }
  if (!findings.length) {
    sentences.push(`No change against ${than} cleared the report's thresholds.`);
    sentences.push(
      reviews && !v.value
        ? "Review themes and ratings by version held steady within them."
        : "Pages, sources, crawlers and page speed held steady within them.",
    );
  } else if (sentences.length < 3) {
    sentences.push("Each finding below names the tool call that shows it.");
  }
  return sentences.slice(0, 5).join(" ");
}

const GROUP: Record<FindingKind, string> = {
  headline_change: "headline change",
  change_driver: "change driver",
  page_rose: "page change",
  page_fell: "page change",
  source_change: "source change",
  ai_engine_change: "AI engine change",
  crawler_started: "crawler change",
  crawler_stopped: "crawler change",
  pages_not_crawled: "crawl gap",
  robots_violation: "robots.txt finding",
  spoofed_agent: "spoofed agent finding",
  vitals_regression: "page speed regression",
  review_theme_rising: "review finding",
  rating_by_version: "review finding",
  funnel_change: "funnel change",
};

/** A finding's claim as a summary sentence (claims are sentences already). */
const sentenceOf = (f: Finding) => f.claim.endsWith(".") ? f.claim : `${f.claim}.`;
