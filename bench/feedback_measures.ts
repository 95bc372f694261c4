/**
 * The measures of bench/feedback.ts, the same for every labelled set, for the hand rules alone ("before") and
 * for what the service answers, the learned models on top of the rules ("after"): sentiment agreement of the
 * text alone with the labelled polarity (overall, on the negative and on the positive reviews; a neutral
 * answer is a miss), and intent macro-F1 where a set has intent labels.
 */
import { analyzeReview, readReview, type ReviewReading } from "../lib/feedback/analysis/analyze.ts";
import { withoutPersonal } from "../lib/feedback/analysis/personal.ts";
import type { Intent } from "../lib/feedback/types.ts";
import { INTENTS } from "../lib/feedback/types.ts";
import type { LabelledReview } from "../scripts/review_corpora.ts";

export type { LabelledReview };
export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export interface Read {
  row: LabelledReview;
  /** False when the review's language is one the models do not cover (left out of the sentiment figures). */
  analysed: boolean;
  reading: ReviewReading;
}

export function readAll(rows: LabelledReview[]): Read[] {
  return rows.map((row) => ({
    row,
    analysed:
      analyzeReview({ rating: row.rating ?? 3, title: null, text: row.text, language: null }).analysed,
    reading: readReview(null, withoutPersonal(row.text), row.rating),
  }));
}

export type Stage = "before" | "after";

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

export function measureSentiment(read: Read[], stage: Stage): SentimentMeasure {
  let skipped = 0, neutral = 0;
  const tally = { negative: [0, 0], positive: [0, 0] }; // [reviews, agreeing]
  for (const { row, analysed, reading } of read) {
    if (!row.polarity) continue;
    if (!analysed) {
      skipped++;
      continue;
    }
    const got = (stage === "before" ? reading.rules : reading.text).label;
    if (got === "neutral") neutral++;
    tally[row.polarity][0]++;
    if (got === row.polarity) tally[row.polarity][1]++;
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

export function measureIntent(read: Read[], stage: Stage): IntentMeasure | null {
  const labelled = read.filter((r) => r.row.intent);
  if (!labelled.length) return null;
  const tp = new Map<Intent, number>(), fp = new Map<Intent, number>(), fn = new Map<Intent, number>();
  const inc = (m: Map<Intent, number>, k: Intent) => m.set(k, (m.get(k) ?? 0) + 1);
  const confusion: Record<string, Record<string, number>> = {};
  for (const { row, reading } of labelled) {
    let got = stage === "before" ? reading.ruleIntent : reading.intent;
    // A set that tells only bug report, feature request or neither: the answer is folded the same way.
    if (row.coarse && got !== "bug_report" && got !== "feature_request") got = "other";
    const gold = got === row.alsoIntent ? got : row.intent!;
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
