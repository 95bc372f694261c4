/**
 * Short quotes from reviews, for own apps only (answer rule 3): the sentence that names the theme, cut to
 * QUOTE_CHARS, with emails and phone numbers masked (rule 4). Never the author.
 */
import { maskText } from "../answers/privacy.ts";
import type { StoredReview } from "./types.ts";
import { lemma, words } from "./analysis/tokens.ts";

export const QUOTE_CHARS = 160;

export function shortQuote(r: StoredReview, hint: Set<string> | null = null): string {
  // The text's sentences first: a title ("Crashing") says less than the sentence that explains it.
  const sentences = [r.text, r.title ?? ""].flatMap((t) => t.split(/(?<=[.!?])\s+|\n+/))
    .map((s) => s.trim()).filter(Boolean);
  const pick = (hint && sentences.find((s) => words(s).some((w) => hint.has(lemma(w)) || hint.has(w)))) ??
    sentences[0] ??
    "";
  const cut = pick.length > QUOTE_CHARS ? pick.slice(0, QUOTE_CHARS - 1).replace(/\s+\S*$/, "") + "…" : pick;
  return maskText(cut);
}

/** Letters and digits only, lower case: quotes that differ in case, spacing or punctuation are one. */
const quoteKey = (q: string) => q.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

/**
 * Up to `max` quotes from the newest reviews, no two alike: reviews often repeat a sentence ("Keeps
 * crashing."), and three copies of it would say less than one. Reviews of the theme's prevailing sentiment
 * come first, so an example says what most of the theme's reviews say (a praise review that mentions
 * "no crashes" is no example of a theme of crash complaints).
 */
export function distinctQuotes(reviews: StoredReview[], hint: Set<string> | null, max = 3): string[] {
  const out: string[] = [], seen = new Set<string>();
  const counts = new Map<string | null, number>();
  for (const r of reviews) counts.set(r.analysis.sentiment, (counts.get(r.analysis.sentiment) ?? 0) + 1);
  const prevailing = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const typical = (r: StoredReview) => (r.analysis.sentiment === prevailing ? 0 : 1);
  const newestFirst = reviews.slice().sort((p, q) => typical(p) - typical(q) || q.created_at - p.created_at);
  for (const r of newestFirst) {
    if (out.length >= max) break;
    const q = shortQuote(r, hint), k = quoteKey(q);
    if (!k || seen.has(k)) continue;
    seen.add(k);
    out.push(q);
  }
  return out;
}
