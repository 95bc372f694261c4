/** Headline figures of a set of reviews: volume, rating, sentiment, versions, replies. */
import type { SentimentLabel, StoredReview } from "./types.ts";

export interface VersionRating {
  version: string;
  reviews: number;
  average_rating: number;
}

export interface ReviewSummary {
  reviews: number;
  average_rating: number | null;
  rating_distribution: Record<"1" | "2" | "3" | "4" | "5", number>;
  analysed: number;
  sentiment: Record<SentimentLabel, number> | null;
  negative_share: number | null;
  versions: VersionRating[];
  versions_total: number;
  replies: number;
  reply_share: number | null;
}

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;
const r2 = (n: number) => Math.round(n * 100) / 100;

export function summarize(reviews: StoredReview[]): ReviewSummary {
  const dist = { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 };
  const sent = { positive: 0, neutral: 0, negative: 0 } as Record<SentimentLabel, number>;
  const versions = new Map<string, { n: number; sum: number }>();
  let sum = 0, analysed = 0, replies = 0;
  for (const r of reviews) {
    sum += r.rating;
    dist[String(r.rating) as keyof typeof dist]++;
    if (r.analysis.analysed && r.analysis.sentiment) {
      analysed++;
      sent[r.analysis.sentiment]++;
    }
    if (r.reply) replies++;
    const v = r.version ?? "(unknown)";
    const e = versions.get(v) ?? { n: 0, sum: 0 };
    e.n++;
    e.sum += r.rating;
    versions.set(v, e);
  }
  const n = reviews.length;
  const vlist = [...versions].map(([version, e]) => ({
    version,
    reviews: e.n,
    average_rating: r2(e.sum / e.n),
  })).sort((a, b) => compareVersions(b.version, a.version));
  return {
    reviews: n,
    average_rating: n ? r2(sum / n) : null,
    rating_distribution: dist,
    analysed,
    sentiment: analysed
      ? {
        positive: r4(sent.positive / analysed),
        neutral: r4(sent.neutral / analysed),
        negative: r4(sent.negative / analysed),
      }
      : null,
    negative_share: analysed ? r4(sent.negative / analysed) : null,
    versions: vlist.slice(0, 25),
    versions_total: vlist.length,
    replies,
    reply_share: n ? r4(replies / n) : null,
  };
}

/** Newest version first: "2.10.1" after "2.9"; "(unknown)" last. */
export function compareVersions(a: string, b: string): number {
  if (a === "(unknown)") return b === "(unknown)" ? 0 : -1;
  if (b === "(unknown)") return 1;
  const pa = a.split(/[.\-]/), pb = b.split(/[.\-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? "0", y = pb[i] ?? "0";
    const nx = Number(x), ny = Number(y);
    const c = Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x.localeCompare(y);
    if (c !== 0) return c;
  }
  return 0;
}
