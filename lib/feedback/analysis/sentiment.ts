/**
 * Sentiment of a review's text, VADER-style: lexicon valences, multi-word cues, negation (a negator in the
 * three words before flips and damps a word), intensifiers, and "but" clauses (what follows "but" counts
 * more than what precedes it). Then combined with the star rating: the text decides unless it disagrees
 * with the stars, where the two are averaged and the stars usually win.
 */
import type { SentimentLabel } from "../types.ts";
import { buildLexicon, INTENSIFIERS, NEGATORS, PHRASES } from "./lexicon.ts";
import { lemma, words } from "./tokens.ts";

const LEXICON = buildLexicon(lemma);
const PHRASE_LIST: { parts: string[]; v: number }[] = Object.entries(PHRASES)
  .map(([p, v]) => ({ parts: p.split(" ").map((w) => lemma(w)), v }))
  .sort((a, b) => b.parts.length - a.parts.length);
const PHRASES_BY_FIRST = new Map<string, { parts: string[]; v: number }[]>();
for (const p of PHRASE_LIST) {
  const list = PHRASES_BY_FIRST.get(p.parts[0]) ?? [];
  list.push(p);
  PHRASES_BY_FIRST.set(p.parts[0], list);
}
const CONTRAST = new Set(["but", "however", "although", "though", "except", "unfortunately"]);
const NEGATION_DAMP = -0.74;
/** A text score of at least this size is positive or negative; smaller is neutral. */
export const TEXT_THRESHOLD = 0.05;

export interface TextSentiment {
  score: number; // -1..1
  label: SentimentLabel;
  /** Words that carried sentiment, for tests and explanations. */
  hits: number;
}

/** Sentiment of the title and text, from the words alone. */
export function textSentiment(title: string | null, text: string): TextSentiment {
  const toks = words(title ? `${title} . ${text}` : text);
  const lem = toks.map(lemma);
  const vals: number[] = [];
  const at: number[] = [];
  let contrastAt = -1;
  for (let i = 0; i < lem.length; i++) {
    if (CONTRAST.has(toks[i])) contrastAt = vals.length;
    const phrases = PHRASES_BY_FIRST.get(lem[i]);
    let matched = false;
    if (phrases) {
      for (const p of phrases) {
        if (p.parts.every((w, k) => lem[i + k] === w)) {
          if (p.v !== 0) {
            vals.push(p.v * boost(toks, i));
            at.push(i);
          }
          i += p.parts.length - 1;
          matched = true;
          break;
        }
      }
    }
    if (matched) continue;
    const v = LEXICON.get(lem[i]);
    if (v === undefined) continue;
    let value = v * boost(toks, i);
    if (negated(toks, i)) value *= NEGATION_DAMP;
    vals.push(value);
    at.push(i);
  }
  let sum = 0;
  for (let k = 0; k < vals.length; k++) {
    const weight = contrastAt < 0 ? 1 : k < contrastAt ? 0.6 : 1.3;
    sum += vals[k] * weight;
  }
  const score = sum / Math.sqrt(sum * sum + 15);
  const label: SentimentLabel = score >= TEXT_THRESHOLD
    ? "positive"
    : score <= -TEXT_THRESHOLD
    ? "negative"
    : "neutral";
  return { score: Math.round(score * 1000) / 1000, label, hits: vals.length };
}

function negated(toks: string[], i: number): boolean {
  for (let k = Math.max(0, i - 3); k < i; k++) {
    if (NEGATORS.has(toks[k])) return true;
    if (CONTRAST.has(toks[k])) return false;
  }
  return false;
}

function boost(toks: string[], i: number): number {
  let f = 1;
  for (let k = Math.max(0, i - 2); k < i; k++) f *= INTENSIFIERS[toks[k]] ?? 1;
  return f;
}

/** Stars as a score: 1 → -1, 3 → 0, 5 → 1. */
export const starScore = (rating: number) => (rating - 3) / 2;

/**
 * The review's sentiment: the text's label when it agrees with the stars' polarity (or the stars are 3);
 * where they disagree, the mean of both scores, so a clear 1-star review reads negative whatever its
 * wording, and a 5-star review with one complaint stays positive.
 */
export function combinedSentiment(text: TextSentiment | null, rating: number): SentimentLabel {
  const stars = starScore(rating);
  if (!text || text.hits === 0) return stars > 0 ? "positive" : stars < 0 ? "negative" : "neutral";
  const starLabel: SentimentLabel = stars > 0 ? "positive" : stars < 0 ? "negative" : "neutral";
  if (starLabel === "neutral" || starLabel === text.label) return text.label;
  const mean = (text.score + stars) / 2;
  return mean >= 0.1 ? "positive" : mean <= -0.1 ? "negative" : "neutral";
}
