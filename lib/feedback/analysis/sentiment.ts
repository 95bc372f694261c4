/**
 * Sentiment of a review's text, VADER-style: lexicon valences (general opinion words plus the app-review
 * vocabulary of lexicon_app.ts; VADER's general lexicon where those find nothing), multi-word cues, emoji,
 * then these rules:
 * - negation: a negator flips and damps an opinion word in the next four words of its clause (a comma or
 *   the end of a sentence closes the scope); "not"/"never"/"nothing" that negate no opinion word describe a
 *   feature that fails ("won't load", "does nothing") and count against;
 * - contrast: what follows the last "but"/"however"/... counts more than what precedes it ("nothing but"
 *   is no contrast; a trailing "though" is not either);
 * - intensifiers ("very", "so", "keeps") and exclamation marks strengthen; "too" before a plain word ("too
 *   big") complains; "Not." after a sentence flips it;
 * - numerals of ratings are read as words ("5 stars", "10/10").
 * Then combined with the star rating: the text decides unless it disagrees with the stars, where the two are
 * averaged and the stars usually win.
 */
import type { SentimentLabel } from "../types.ts";
import { buildLexicon, INTENSIFIERS, NEGATORS, PHRASES } from "./lexicon.ts";
import { APP_NEGATIVE, APP_PHRASES, APP_POSITIVE, EMOJI, TOKEN_VALENCE } from "./lexicon_app.ts";
import { lemma, normalizeText, STOPWORDS, words } from "./tokens.ts";
import { lexicon as VADER } from "vader-sentiment/src/vader_lexicon.js";

const LEXICON = buildLexicon(lemma);
for (const [w, v] of buildLexicon(lemma, APP_POSITIVE, APP_NEGATIVE)) LEXICON.set(w, v);
/**
 * VADER's general lexicon (7,500 words, npm vader-sentiment, Apache-2.0), damped, for texts in which our own
 * lexicons find nothing: it names everyday opinion words ours lack, but used everywhere it would outvote the
 * app-review vocabulary (measured: it cost 4 points on negative app reviews).
 */
const GENERAL = new Map<string, number>();
for (const [w, v] of Object.entries(VADER as Record<string, number>)) {
  if (/^[a-z]+$/.test(w) && Math.abs(v) >= 1) GENERAL.set(w, v * 0.6);
}
interface Phrase {
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
const CONTRAST = new Set(["but", "however", "although", "though", "except", "unfortunately", "sadly"]);
/** Negators whose scope holds no opinion word still say something failed ("it won't open"). */
const FAILING = new Set(["not", "never", "nothing"]);
const FAILING_VALUE = -1.2;
const NOT_A_FAILURE_NEXT = new Set(["only", "just", "to", "sure", "that", "mention", "bad", "a", "the"]);
const NEGATION_DAMP = -0.74;
const TOO_VALUE = -1.5;
/** Words that only go with a negation and keep their sign under it ("doesn't sync anymore"). */
const UNFLIPPED = new Set(["anymore", "whatsoever"]);
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
/** Words after a negator that it reaches ("never had any big problems"). */
const SCOPE = 4;
const RAISING = new Set(["think", "believe", "feel", "find"]);
const EMOJI_RE = new RegExp(Object.keys(EMOJI).sort((a, b) => b.length - a.length).join("|"), "gu");
/** A text score of at least this size is positive or negative; smaller is neutral. */
export const TEXT_THRESHOLD = 0.05;

export interface TextSentiment {
  score: number; // -1..1
  label: SentimentLabel;
  /** Words that carried sentiment, for tests and explanations. */
  hits: number;
}

/** Rating numerals as words, elongations folded ("soooo gooood" → "so good"). */
function prepare(text: string): string {
  return normalizeText(text)
    .replace(/\b(10|ten)\s?\/\s?10\b/g, " ten out of ten ")
    .replace(
      /\b([0-5])\s?(?:\/\s?5\s)?\s?stars?\b/g,
      (_, n) => ` ${"zero one two three four five".split(" ")[+n]} stars `,
    )
    .replace(/[a-z]*([a-z])\1{2,}[a-z]*/g, fold);
}

/** Sentiment of the title and text, from the words alone. */
export function textSentiment(title: string | null, text: string): TextSentiment {
  const raw = title ? `${title}. ${text}` : text;
  const vals: number[] = [], general: number[] = [];
  let contrastAt = -1;
  const clauses = prepare(raw).split(/[.!?;,\n]+|\s[-–—]+\s/);
  for (const clause of clauses) {
    const toks = words(clause);
    if (toks.length === 1 && toks[0] === "not" && vals.length) {
      for (let k = 0; k < vals.length; k++) vals[k] = -vals[k]; // "Super motivating. Not."
      continue;
    }
    const lem = toks.map(lemma);
    let negatorAt = -1, negatorUsed = true, scope = SCOPE;
    const closeNegation = () => {
      if (
        !negatorUsed && FAILING.has(toks[negatorAt]) && !NOT_A_FAILURE_NEXT.has(toks[negatorAt + 1] ?? "")
      ) {
        vals.push(FAILING_VALUE);
      }
      negatorUsed = true;
    };
    for (let i = 0; i < lem.length; i++) {
      if (negatorAt >= 0 && i - negatorAt > scope) closeNegation();
      if (CONTRAST.has(toks[i]) && !isFalseContrast(toks, i)) contrastAt = vals.length;
      const p = phraseAt(lem, i);
      if (p) {
        if (p.v !== 0) vals.push(p.v * boost(toks, i));
        if (negatorAt >= 0 && i - negatorAt <= scope) negatorUsed = true;
        i += p.parts.length - 1;
        continue;
      }
      if (NEGATORS.has(toks[i]) && toks[i + 1] !== "only") {
        if (negatorAt >= 0) closeNegation();
        negatorAt = i;
        negatorUsed = false;
        // "I don't think it is good": a negated opinion verb reaches the end of its clause.
        scope = RAISING.has(toks[i + 1]) ? toks.length : SCOPE;
        continue;
      }
      const v = valence(toks[i], lem[i]);
      if (v === undefined && toks[i] === "too" && tooMuch(toks[i + 1])) vals.push(TOO_VALUE);
      if (v === undefined && GENERAL.has(toks[i])) {
        const g = GENERAL.get(toks[i])!;
        general.push(negatorAt >= 0 && i - negatorAt <= scope ? g * NEGATION_DAMP : g);
      }
      if (v === undefined || v === 0) continue;
      let value = v * boost(toks, i);
      if (negatorAt >= 0 && i - negatorAt <= scope && !UNFLIPPED.has(toks[i])) {
        value *= NEGATION_DAMP;
        negatorUsed = true;
      }
      vals.push(value);
    }
    if (negatorAt >= 0) closeNegation();
  }
  for (const m of raw.matchAll(EMOJI_RE)) vals.push(EMOJI[m[0]]);
  // Only where our own lexicons found nothing, the general one (VADER's) decides.
  if (vals.length === 0) vals.push(...general);
  let sum = 0;
  for (let k = 0; k < vals.length; k++) {
    sum += vals[k] * (contrastAt <= 0 ? 1 : k < contrastAt ? 0.5 : 1.5);
  }
  const bangs = Math.min((raw.match(/!/g) ?? []).length, 4);
  if (sum !== 0) sum += Math.sign(sum) * bangs * 0.3;
  const score = sum / Math.sqrt(sum * sum + 15);
  const label: SentimentLabel = score >= TEXT_THRESHOLD
    ? "positive"
    : score <= -TEXT_THRESHOLD
    ? "negative"
    : "neutral";
  return { score: Math.round(score * 1000) / 1000, label, hits: vals.length };
}

/** An elongated word folded to a known one: "soooo" → "so", "gooood" → "good", "waaay" → "way". */
function fold(w: string): string {
  const two = w.replace(/([a-z])\1{2,}/g, "$1$1"), one = w.replace(/([a-z])\1+/g, "$1");
  const known = (x: string) => LEXICON.has(lemma(x)) || x in INTENSIFIERS || STOPWORDS.has(x);
  return known(two) ? two : known(one) ? one : two;
}

/** "too big", "too long": "too" before a word of no valence of its own is a complaint. */
function tooMuch(next: string | undefined): boolean {
  return !!next && !STOPWORDS.has(next) && valence(next, lemma(next)) === undefined;
}

/** A word's valence, or its adjective's for an adverb ("comfortably", "easily", "badly"). */
function valence(tok: string, lem: string): number | undefined {
  const v = TOKEN_VALENCE[tok] ?? LEXICON.get(lem) ?? LEXICON.get(tok);
  if (v !== undefined || !tok.endsWith("ly") || tok.length < 5 || NOT_ADVERBS.has(tok)) return v;
  const stem = tok.slice(0, -2);
  for (const adj of [stem, stem.replace(/i$/, "y"), stem + "e", stem.replace(/bl$|pl$/, (m) => m + "e")]) {
    const a = LEXICON.get(lemma(adj)) ?? LEXICON.get(adj);
    if (a !== undefined) return a;
  }
  return undefined;
}

function phraseAt(lem: string[], i: number): Phrase | null {
  for (const p of PHRASES_BY_FIRST.get(lem[i]) ?? []) {
    if (p.parts.every((w, k) => lem[i + k] === w)) return p;
  }
  return null;
}

/** "nothing but a grey box" and "all but" are no contrast; a clause-final "though" looks back, not on. */
function isFalseContrast(toks: string[], i: number): boolean {
  if (toks[i] === "but") return ["nothing", "anything", "all"].includes(toks[i - 1]);
  if (toks[i] === "though") return i === toks.length - 1;
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
