/**
 * What single words and fixed phrases are worth: our lexicons (lexicon.ts, lexicon_app.ts), VADER's general
 * lexicon as a fallback, adverbs read as their adjectives, intensifiers, and the text made ready for them
 * (rating numerals as words, elongations folded).
 */
import { buildLexicon, INTENSIFIERS, PHRASES } from "./lexicon.ts";
import { APP_NEGATIVE, APP_PHRASES, APP_POSITIVE, TOKEN_VALENCE } from "./lexicon_app.ts";
import { lemma, normalizeText, STOPWORDS, words } from "./tokens.ts";
import { lexicon as VADER } from "vader-sentiment/src/vader_lexicon.js";
import { own } from "./own.ts";

const LEXICON = buildLexicon(lemma);
for (const [w, v] of buildLexicon(lemma, APP_POSITIVE, APP_NEGATIVE)) LEXICON.set(w, v);

/**
 * VADER's general lexicon (7,500 words, npm vader-sentiment, Apache-2.0), damped, for texts in which our own
 * lexicons find nothing: it names everyday opinion words ours lack, but used everywhere it would outvote the
 * app-review vocabulary (measured: it cost 4 points on negative app reviews).
 */
export const GENERAL = new Map<string, number>();
for (const [w, v] of Object.entries(VADER as Record<string, number>)) {
  if (/^[a-z]+$/.test(w) && Math.abs(v) >= 1) GENERAL.set(w, v * 0.6);
}

export interface Phrase {
  parts: string[];
  v: number;
}
const PHRASES_BY_FIRST = new Map<string, Phrase[]>();
for (const [p, v] of Object.entries({ ...PHRASES, ...APP_PHRASES })) {
  const parts = words(p).map(lemma);
  const list = PHRASES_BY_FIRST.get(parts[0]) ?? [];
  list.push({ parts, v });
  PHRASES_BY_FIRST.set(parts[0], list.sort((a, b) => b.parts.length - a.parts.length));
}

/** The longest phrase of the lexicons starting at lemma i, or null. */
export function phraseAt(lem: string[], i: number): Phrase | null {
  for (const p of PHRASES_BY_FIRST.get(lem[i]) ?? []) {
    if (p.parts.every((w, k) => lem[i + k] === w)) return p;
  }
  return null;
}

/** Sentence adverbs that say nothing of their adjective's opinion. */
const NOT_ADVERBS = new Set([
  "essentially",
  "basically",
  "literally",
  "actually",
  "honestly",
  "seriously",
  "simply",
]);

/** A word's valence, or its adjective's for an adverb ("comfortably", "easily", "badly"). */
export function valence(tok: string, lem: string = lemma(tok)): number | undefined {
  const v = own(TOKEN_VALENCE, tok) ?? LEXICON.get(lem) ?? LEXICON.get(tok);
  if (v !== undefined || !tok.endsWith("ly") || tok.length < 5 || NOT_ADVERBS.has(tok)) return v;
  const stem = tok.slice(0, -2);
  for (const adj of [stem, stem.replace(/i$/, "y"), stem + "e", stem.replace(/bl$|pl$/, (m) => m + "e")]) {
    const a = LEXICON.get(lemma(adj)) ?? LEXICON.get(adj);
    if (a !== undefined) return a;
  }
  return undefined;
}

/** The strength the two words before i give it ("very good", "really bad"). */
export function boost(toks: string[], i: number): number {
  let f = 1;
  for (let k = Math.max(0, i - 2); k < i; k++) f *= own(INTENSIFIERS, toks[k]) ?? 1;
  return f;
}

/** Rating numerals as words, elongations folded ("soooo gooood" → "so good"). */
export function prepare(text: string): string {
  return normalizeText(text)
    .replace(/\b(10|ten)\s?\/\s?10\b/g, " ten out of ten ")
    .replace(
      /\b([0-5])\s?(?:\/\s?5\s)?\s?stars?\b/g,
      (_, n) => ` ${"zero one two three four five".split(" ")[+n]} stars `,
    )
    .replace(/[a-z]*([a-z])\1{2,}[a-z]*/g, fold);
}

/** An elongated word folded to a known one: "soooo" → "so", "gooood" → "good", "waaay" → "way". */
function fold(w: string): string {
  const two = w.replace(/([a-z])\1{2,}/g, "$1$1"), one = w.replace(/([a-z])\1+/g, "$1");
  const known = (x: string) => LEXICON.has(lemma(x)) || x in INTENSIFIERS || STOPWORDS.has(x);
  return known(two) ? two : known(one) ? one : two;
}
