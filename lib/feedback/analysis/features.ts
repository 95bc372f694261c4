/**
 * The words a learned model reads in a review (analysis/learned.ts, scripts/train_reviews.ts): each word's
 * lemma and each pair of neighbouring lemmas within a clause, a word after "not", "no" or "never" marked as
 * negated up to the clause's end ("not|good"), and the review's question and exclamation marks.
 */
import { lemma, normalizeText } from "./tokens.ts";

const NEGATORS = new Set(["not", "no", "never", "nothing", "nobody", "none", "without"]);
const WORD = /[a-z\u00c0-\u024f]+(?:'[a-z]+)?/g;

export function reviewFeatures(text: string): string[] {
  const out = new Set<string>();
  const norm = normalizeText(text);
  for (const clause of norm.split(/[.,!?;:\n()]+|\s-\s|\bbut\b/)) {
    const ws = clause.match(WORD);
    if (!ws) continue;
    let negated = false;
    let prev = "^";
    for (const w of ws) {
      if (NEGATORS.has(w)) {
        negated = true;
        out.add(w);
        prev = w;
        continue;
      }
      const l = lemma(w);
      const f = negated ? `not|${l}` : l;
      out.add(f);
      out.add(`${prev} ${l}`);
      prev = l;
    }
  }
  if (norm.includes("?")) out.add("?");
  if (norm.includes("!")) out.add("!");
  return [...out];
}
