/**
 * Everything the service derives from one review, in-process: language, sentiment (text, then combined with
 * the stars), intent, taxonomy topics and key phrases. Stored beside the review; `ANALYSIS_VERSION` changes
 * when the models do, so stored analyses can be told apart from current ones.
 */
import type { Intent, ReviewAnalysis } from "../types.ts";
import { ANALYSED_LANGUAGES, detectLanguage } from "./language.ts";
import { combinedSentiment, type TextSentiment, textSentiment } from "./sentiment.ts";
import { learnedIntent, learnedSentiment } from "./learned.ts";
import { reviewFeatures } from "./features.ts";
import { classifyIntent } from "./intent.ts";
import { lemma, normalizeText, words } from "./tokens.ts";
import { keyPhrases, topicsOf } from "../themes/match.ts";
import { withoutPersonal } from "./personal.ts";

import { ANALYSIS_VERSION } from "./version.ts";
export { ANALYSIS_VERSION };

export interface ReviewReading {
  /** The hand rules' sentiment and intent alone. */
  rules: TextSentiment;
  ruleIntent: Intent;
  /** What the service answers: the learned models over the words, with the rules' answer among their features. */
  text: TextSentiment;
  intent: Intent;
}

/**
 * Sentiment of the text and intent, by the rules and by the learned models on top of them (analysis/learned.ts).
 * `rating` null: no stars known (the rules are then told 3). The text is expected rid of personal details.
 */
export function readReview(title: string | null, text: string, rating: number | null): ReviewReading {
  const rules = textSentiment(title, text);
  const ruleIntent = classifyIntent(title, text, rules.label, rating ?? 3, rules.habit);
  const features = reviewFeatures(title ? `${title}. ${text}` : text);
  const learned = learnedSentiment(features, rules);
  return {
    rules,
    ruleIntent,
    text: learned,
    intent: learnedIntent(features, ruleIntent, learned.label, rating),
  };
}

export interface AnalysisInput {
  rating: number;
  title: string | null;
  text: string;
  language: string | null;
}

export function analyzeReview(input: AnalysisInput): ReviewAnalysis {
  // Nothing is derived from emails, web addresses, handles or phone numbers (answer rule 4).
  const r = {
    ...input,
    title: input.title && withoutPersonal(input.title),
    text: withoutPersonal(input.text),
  };
  const full = r.title ? `${r.title}. ${r.text}` : r.text;
  const language = detectLanguage(full, r.language);
  if (!language || !ANALYSED_LANGUAGES.has(language)) {
    return {
      v: ANALYSIS_VERSION,
      language,
      analysed: false,
      text_score: null,
      sentiment: null,
      intent: null,
      topics: [],
      phrases: [],
    };
  }
  const read = readReview(r.title, r.text, r.rating);
  const sentiment = combinedSentiment(read.text, r.rating);
  const sentences = normalizeText(full).split(/[.!?;:\n]+/).map((s) => words(s)).filter((s) => s.length);
  return {
    v: ANALYSIS_VERSION,
    language,
    analysed: true,
    text_score: read.text.score,
    sentiment,
    intent: read.intent,
    topics: topicsOf(sentences.flat().map(lemma), sentences.flat()),
    phrases: keyPhrases(sentences),
  };
}
