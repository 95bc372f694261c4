/**
 * The measures of bench/feedback.ts, the same for every labelled set: sentiment agreement of the text alone
 * with the labelled polarity (overall, on the negative and on the positive reviews; a neutral answer is a
 * miss), and intent macro-F1 where a set has intent labels.
 */
import { analyzeReview } from "../lib/feedback/analysis/analyze.ts";
import { textSentiment } from "../lib/feedback/analysis/sentiment.ts";
import { classifyIntent } from "../lib/feedback/analysis/intent.ts";
import type { Intent } from "../lib/feedback/types.ts";
import { INTENTS } from "../lib/feedback/types.ts";

export interface LabelledReview {
  id: string;
  text: string;
  /** 1-5 stars; null where the set has only a polarity (then the classifier is not told any stars). */
  rating: number | null;
  polarity: "positive" | "negative" | null;
  intent?: Intent;
}

/** Polarity from stars: 1-2 negative, 4-5 positive, 3 none (left out of the agreement). */
export const starPolarity = (rating: number): "positive" | "negative" | null =>
  rating <= 2 ? "negative" : rating >= 4 ? "positive" : null;

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export interface SentimentMeasure {
  polar_analysed: number;
  polar_not_analysed: number;
  agreement: number;
  negative_agreement: number;
  positive_agreement: number;
  negative_reviews: number;
  positive_reviews: number;
  neutral_answers: number;
}

export function measureSentiment(rows: LabelledReview[]): SentimentMeasure {
  let skipped = 0, neutral = 0;
  const tally = { negative: [0, 0], positive: [0, 0] }; // [reviews, agreeing]
  for (const r of rows) {
    if (!r.polarity) continue;
    const a = analyzeReview({ rating: r.rating ?? 3, title: null, text: r.text, language: null });
    if (!a.analysed) {
      skipped++;
      continue;
    }
    const got = textSentiment(null, r.text).label;
    if (got === "neutral") neutral++;
    tally[r.polarity][0]++;
    if (got === r.polarity) tally[r.polarity][1]++;
  }
  const [neg, negOk] = tally.negative, [pos, posOk] = tally.positive;
  return {
    polar_analysed: neg + pos,
    polar_not_analysed: skipped,
    agreement: (negOk + posOk) / (neg + pos),
    negative_agreement: negOk / neg,
    positive_agreement: posOk / pos,
    negative_reviews: neg,
    positive_reviews: pos,
    neutral_answers: neutral,
  };
}

export interface IntentMeasure {
  labelled: number;
  accuracy: number;
  macro_f1: number;
  per_intent: { intent: Intent; f1: number; precision: number; recall: number; support: number }[];
  /** gold → answered → count, for reading the mistakes. */
  confusion: Record<string, Record<string, number>>;
}

export function measureIntent(rows: LabelledReview[]): IntentMeasure | null {
  const labelled = rows.filter((r) => r.intent);
  if (!labelled.length) return null;
  const tp = new Map<Intent, number>(), fp = new Map<Intent, number>(), fn = new Map<Intent, number>();
  const inc = (m: Map<Intent, number>, k: Intent) => m.set(k, (m.get(k) ?? 0) + 1);
  const confusion: Record<string, Record<string, number>> = {};
  for (const r of labelled) {
    const gold = r.intent!;
    const rating = r.rating ?? 3;
    const text = textSentiment(null, r.text);
    const got = classifyIntent(null, r.text, text.label, rating, text.habit);
    confusion[gold] ??= {};
    confusion[gold][got] = (confusion[gold][got] ?? 0) + 1;
    if (got === gold) inc(tp, gold);
    else {
      inc(fp, got);
      inc(fn, gold);
    }
  }
  const per = INTENTS.filter((i) => (tp.get(i) ?? 0) + (fn.get(i) ?? 0) > 0).map((intent) => {
    const t = tp.get(intent) ?? 0, p = t + (fp.get(intent) ?? 0), g = t + (fn.get(intent) ?? 0);
    const precision = p ? t / p : 0, recall = g ? t / g : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    return { intent, f1, precision, recall, support: g };
  });
  const correct = [...tp.values()].reduce((s, x) => s + x, 0);
  return {
    labelled: labelled.length,
    accuracy: correct / labelled.length,
    macro_f1: per.reduce((s, x) => s + x.f1, 0) / per.length,
    per_intent: per,
    confusion,
  };
}

export function printSentiment(set: string, m: SentimentMeasure) {
  console.log(
    `${set}: sentiment vs labels ${pct(m.agreement)} overall (target 85%), ${pct(m.negative_agreement)} of ` +
      `${m.negative_reviews} negative (target 75%), ${pct(m.positive_agreement)} of ${m.positive_reviews} ` +
      `positive; ${m.neutral_answers} neutral answers; ${m.polar_not_analysed} polar reviews not analysed (language)`,
  );
}

export function printIntent(set: string, m: IntentMeasure) {
  console.log(
    `${set}: intent macro-F1 ${m.macro_f1.toFixed(3)} over ${m.labelled} labelled reviews (target 0.70), ` +
      `accuracy ${pct(m.accuracy)}; ` +
      m.per_intent.map((x) => `${x.intent} ${x.f1.toFixed(2)} (${x.support})`).join(", "),
  );
}
