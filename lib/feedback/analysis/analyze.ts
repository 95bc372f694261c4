/**
 * Everything the service derives from one review, in-process: language, sentiment (text, then combined with
 * the stars), intent, taxonomy topics and key phrases. Stored beside the review; `ANALYSIS_VERSION` changes
 * when the models do, so stored analyses can be told apart from current ones.
 */
import type { ReviewAnalysis } from "../types.ts";
import { ANALYSED_LANGUAGES, detectLanguage } from "./language.ts";
import { combinedSentiment, textSentiment } from "./sentiment.ts";
import { classifyIntent } from "./intent.ts";
import { lemma, normalizeText, words } from "./tokens.ts";
import { keyPhrases, topicsOf } from "../themes/match.ts";
import { withoutPersonal } from "./personal.ts";

export const ANALYSIS_VERSION = 4;

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
  const text = textSentiment(r.title, r.text);
  const sentiment = combinedSentiment(text, r.rating);
  const sentences = normalizeText(full).split(/[.!?;:\n]+/).map((s) => words(s)).filter((s) => s.length);
  return {
    v: ANALYSIS_VERSION,
    language,
    analysed: true,
    text_score: text.score,
    sentiment,
    intent: classifyIntent(r.title, r.text, text.label, r.rating, text.habit),
    topics: topicsOf(sentences.flat().map(lemma)),
    phrases: keyPhrases(sentences),
  };
}
