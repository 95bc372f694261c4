/**
 * Where the hand rules stop: two small models learned from labelled reviews (scripts/train_reviews.ts writes
 * their weights to review_model.json, with the sources they came from). Both read the rules' answer as one of
 * their features, so a rule keeps the weight it earned on the training reviews:
 * - sentiment: logistic regression over words, word pairs and negated words (analysis/features.ts) plus the
 *   rules' score; its probability gives the score (-1..1), a narrow band around even is neutral;
 * - intent: multinomial logistic regression over the same words plus the rules' intent, the text's
 *   sentiment and the stars; where the rules' answer is an intent whose rule measurably beat the model
 *   on the training reviews (cross-validated; "rule_first" in the weights), the rule decides.
 */
import type { Intent, SentimentLabel } from "../types.ts";
import type { TextSentiment } from "./sentiment.ts";
import model from "./review_model.json" with { type: "json" };
import { own } from "./own.ts";

interface Model {
  sentiment: {
    bias: number;
    rule: number;
    no_rule: number;
    neutral_band: number;
    weights: Record<string, number>;
  };
  /** rule_first: the intents whose rule answer beat the model in the training's cross-validation. */
  intent: { classes: Intent[]; rule_first: Intent[]; bias: number[]; weights: Record<string, number[]> };
}
const M = model as unknown as Model;
const SENT_W = new Map(Object.entries(M.sentiment.weights));
const INTENT_W = new Map(Object.entries(M.intent.weights));
const RULE_FIRST = new Set(M.intent.rule_first);

export type SentimentWeights = Model["sentiment"];

/** The text sentiment a set of weights gives (the training script passes weights it has not written yet). */
export function sentimentWith(
  w: SentimentWeights,
  features: string[],
  rules: TextSentiment,
  weight: (feature: string) => number | undefined = (f) => own(w.weights, f),
): TextSentiment {
  let z = w.bias + w.rule * rules.score + (rules.hits === 0 ? w.no_rule : 0);
  for (const f of features) z += weight(f) ?? 0;
  const score = Math.round((2 / (1 + Math.exp(-z)) - 1) * 1000) / 1000;
  const label: SentimentLabel = score > w.neutral_band
    ? "positive"
    : score < -w.neutral_band
    ? "negative"
    : "neutral";
  return { score, label, hits: rules.hits + (label === "neutral" ? 0 : 1), habit: rules.habit };
}

/** The learned text sentiment, given the text's features and the rules' own reading. */
export function learnedSentiment(features: string[], rules: TextSentiment): TextSentiment {
  return sentimentWith(M.sentiment, features, rules, (f) => SENT_W.get(f));
}

/** Context features of intent: the rules' answer, the text's sentiment, the stars. */
export const intentContext = (ruleIntent: Intent, sentiment: SentimentLabel, rating: number | null) => [
  `rule=${ruleIntent}`,
  `sent=${sentiment}`,
  `stars=${rating ?? "none"}`,
];

export function learnedIntent(
  features: string[],
  ruleIntent: Intent,
  sentiment: SentimentLabel,
  rating: number | null,
): Intent {
  if (RULE_FIRST.has(ruleIntent)) return ruleIntent;
  const scores = M.intent.bias.slice();
  for (const f of [...features, ...intentContext(ruleIntent, sentiment, rating)]) {
    const w = INTENT_W.get(f);
    if (w) { for (let c = 0; c < scores.length; c++) scores[c] += w[c]; }
  }
  let best = 0;
  for (let c = 1; c < scores.length; c++) if (scores[c] > scores[best]) best = c;
  return M.intent.classes[best];
}
