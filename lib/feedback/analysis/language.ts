/**
 * The language of a review. tinyld (in-process, no model download) guesses from letters; short English
 * texts ("great app!") are often guessed wrong, so a text mostly made of common English words is English.
 * Evaluating tinyld builds ~40 MB of n-gram tables, which a process answering behavior questions alone should
 * not hold: this file is reached only through the analysis loaded on demand (on_demand.ts).
 */
import { detect } from "tinyld";
import { buildLexicon } from "./lexicon.ts";
import { APP_NEGATIVE, APP_POSITIVE } from "./lexicon_app.ts";
import { STOPWORDS, words } from "./tokens.ts";
import model from "./review_model.json" with { type: "json" };

/** Languages the sentiment, intent and theme models cover. */
export const ANALYSED_LANGUAGES: ReadonlySet<string> = new Set(["en"]);

const COMMON_EN = new Set([
  ...STOPWORDS,
  ..."app great good love nice best awesome game easy works work useful bad worst please fix update thanks"
    .split(" "),
  // English opinion words ("excellent phone", "worst customer service") are English too.
  ...buildLexicon((w) => w).keys(),
  ...buildLexicon((w) => w, APP_POSITIVE, APP_NEGATIVE).keys(),
  // The words of the English training reviews (scripts/train_reviews.ts): "connection issues to main
  // server", "quite user friendly" are English too.
  ...model.english_words,
]);

/**
 * The languages app stores are reviewed in (the App Store's and Google Play's localisations), for tinyld to
 * choose from: left to itself it reads short English reviews as Latin, Klingon or Kirundi.
 */
const STORE_LANGUAGES = (
  "en de fr es it pt nl sv da no fi pl cs sk hu ro tr ru uk el bg hr sr sl lt lv et ca ja ko zh ar he hi " +
  "th vi id ms fa bn ta ur"
).split(" ");

export function detectLanguage(text: string, given: string | null): string | null {
  const ws = words(text);
  if (ws.length > 0) {
    const english = ws.filter((w) => COMMON_EN.has(w)).length / ws.length;
    // Short texts at half common English words; longer ones at 60% (no other store language shares that
    // many words with English), which also spares most English reviews tinyld's cost.
    if (english >= (ws.length <= 12 ? 0.5 : 0.6)) return "en";
  }
  const guess = detect(text, { only: STORE_LANGUAGES });
  if (guess) return guess;
  if (given) return given.slice(0, 2).toLowerCase();
  return null;
}
