/**
 * Sentiment of a review's text, VADER-style: word and phrase valences (valence.ts: our lexicons, VADER's
 * general one where they find nothing), emoji, then rules a linguist would name:
 * - negation (clause_rules.ts): "not", "never", "no", "no longer", "used to" flip and damp the opinion
 *   words of the next four words of their clause; one that negates no opinion word tells of a failure
 *   ("won't load", "no reply", "no longer syncs"); "less" lowers the word after it ("less buggy");
 * - contrast and concession: what follows the last "but"/"however" weighs 1.5, what precedes 0.5, and a
 *   "but" followed by no opinion word still turns against what came before ("fine, but every export has
 *   a footer"); a clause opened by "although"/"even though"/"despite" is conceded (weighs half);
 * - mood: praise in an "if" clause and its consequence is not given ("if you add tags, five stars");
 * - app-review patterns: "keeps logging me out" (unasked repetition), "too small", a problem reported as
 *   solved ("the crash is fixed"), speed and ease of trouble ("breaks easily"), a price that rose;
 * - irony: mock praise ("oh great", "wow thanks", a closing "Nice.") in a review that reports a failure;
 * - intensifiers and exclamation marks strengthen; "Not." after a sentence flips it;
 * - with no opinion at all, a habit of use ("use it every day") reads as content.
 * Then combined with the star rating: the text decides unless it disagrees with the stars, where the two are
 * averaged and the stars usually win.
 */
import type { SentimentLabel } from "../types.ts";
import { EMOJI } from "./lexicon_app.ts";
import { lemma, words } from "./tokens.ts";
import { boost, GENERAL, phraseAt, prepare, valence } from "./valence.ts";
import {
  concessiveAt,
  contrastAt,
  failureOf,
  hypotheticalFrom,
  mannerOfTrouble,
  nearSolved,
  type Negation,
  NEGATION_DAMP,
  negationAt,
  notAnOpinion,
  REPEAT_VALUE,
  repeatedUnwanted,
  sneers,
  SOLVED_DAMP,
  solvedIn,
  TOO_VALUE,
  tooMuch,
  UNFLIPPED,
} from "./clause_rules.ts";
import {
  HABIT_VALUE,
  habitualUse,
  impliedContrast,
  IRONY,
  PRICE_ROSE_VALUE,
  priceRose,
} from "./review_rules.ts";

const EMOJI_RE = new RegExp(Object.keys(EMOJI).sort((a, b) => b.length - a.length).join("|"), "gu");
/** A text score of at least this size is positive or negative; smaller is neutral. */
export const TEXT_THRESHOLD = 0.05;
const HYPOTHETICAL_DAMP = 0.3;

export interface TextSentiment {
  score: number; // -1..1
  label: SentimentLabel;
  /** Words that carried sentiment, for tests and explanations. */
  hits: number;
  /** True when the only sign was a habit of use ("use it every day"): content, but no opinion given. */
  habit: boolean;
}

/** The valences found so far in a review, and what weighs them. */
interface Tally {
  vals: number[];
  /** VADER's valences, used only when `vals` stays empty. */
  general: number[];
  /** Index in `vals` where the last contrast ("but") began, -1 for none, and the words after it. */
  contrastAt: number;
  afterContrast: string;
  /** Indexes of values in conceded clauses. */
  conceded: Set<number>;
}

/** Sentiment of the title and text, from the words alone. */
export function textSentiment(title: string | null, text: string): TextSentiment {
  const raw = title ? `${title}. ${text}` : text;
  const prepared = prepare(raw);
  const t: Tally = { vals: [], general: [], contrastAt: -1, afterContrast: "", conceded: new Set() };
  // Clauses with the punctuation after each ("," keeps a sentence going).
  const parts = prepared.split(/([.!?;,\n]+|\s[-–—]+\s)/);
  const clauses = parts.filter((_, k) => k % 2 === 0), ends = parts.filter((_, k) => k % 2 === 1);
  const lastClause = clauses.findLastIndex((c) => words(c).length > 0);
  let ifGoesOn = false;
  for (const [c, clause] of clauses.entries()) {
    const toks = words(clause);
    if (toks.length === 1 && toks[0] === "not" && t.vals.length) {
      for (let k = 0; k < t.vals.length; k++) t.vals[k] = -t.vals[k]; // "Super motivating. Not."
      continue;
    }
    // An "if" clause closed by a comma carries its mood into the clause after ("If you add X, 5 stars").
    const hypo: number = ifGoesOn ? 0 : hypotheticalFrom(toks);
    ifGoesOn = hypo === 0 && toks[0] === "if" && /^,/.test(ends[c] ?? "");
    const before = t.vals.length;
    scoreClause(toks, t, hypo);
    if (
      c === lastClause && t.vals.length === before + 1 &&
      sneers(toks, t.vals[before], t.vals.slice(0, before))
    ) {
      t.vals[before] = -t.vals[before];
    }
  }
  const { vals } = t;
  if (t.contrastAt > 0 && t.contrastAt === vals.length) {
    const v = impliedContrast(vals.reduce((a, b) => a + b, 0), t.afterContrast);
    if (v) vals.push(v);
  }
  for (const m of raw.matchAll(EMOJI_RE)) vals.push(EMOJI[m[0]]);
  if (priceRose(prepared)) vals.push(PRICE_ROSE_VALUE);
  if (IRONY.test(prepared) && vals.some((v) => v <= -1)) {
    for (let k = 0; k < vals.length; k++) if (vals[k] > 0) vals[k] = -vals[k];
  }
  // Only where our own lexicons found nothing, the general one (VADER's) decides; failing that, a habit.
  if (vals.length === 0) vals.push(...t.general);
  const habit = vals.length === 0 && habitualUse(prepared);
  if (habit) vals.push(HABIT_VALUE);
  return finish(raw, t, habit);
}

/** Adds one clause's valences to the tally; `hypo` is the token where a hypothetical starts, or -1. */
function scoreClause(toks: string[], t: Tally, hypo: number) {
  const { vals } = t;
  const lem = toks.map(lemma);
  const solved = solvedIn(toks);
  let neg: Negation | null = null, negAt = -1, negUsed = true;
  let lastNegativeAt = -10, concededFrom = -1, hypoStart = hypo === 0 ? vals.length : Infinity;
  const inScope = (i: number) => neg !== null && i - negAt <= neg.scope;
  const closeNegation = () => {
    if (neg && !negUsed && neg.failing !== null && failureOf(toks, negAt)) vals.push(neg.failing);
    negUsed = true;
  };
  for (let i = 0; i < lem.length; i++) {
    if (i === hypo) hypoStart = vals.length;
    if (neg && i - negAt > neg.scope) closeNegation();
    if (contrastAt(toks, i)) {
      t.contrastAt = vals.length;
      t.afterContrast = toks.slice(i + 1).join(" ");
    }
    if (concededFrom < 0 && concessiveAt(toks, i)) concededFrom = vals.length;
    const p = phraseAt(lem, i);
    if (p) {
      // A past state negates its phrase too ("used to love it"); "don't waste your money" stays advice.
      const past = inScope(i) && neg!.past;
      if (p.v !== 0) vals.push(p.v * boost(toks, i) * (past ? NEGATION_DAMP : 1));
      if (inScope(i)) negUsed = true;
      i += p.parts.length - 1;
      continue;
    }
    const n = negationAt(toks, i);
    if (n) {
      closeNegation();
      neg = n;
      negAt = i + n.length - 1;
      negUsed = false;
      i = negAt;
      continue;
    }
    const v = notAnOpinion(toks, i) ? undefined : valence(toks[i], lem[i]);
    if (v === undefined && tooMuch(toks, i)) {
      vals.push(TOO_VALUE);
      i++; // "too small": the plain word's own mild praise goes with it
      continue;
    }
    if (repeatedUnwanted(toks, i)) vals.push(REPEAT_VALUE);
    if (v === undefined && GENERAL.has(toks[i])) {
      const g = GENERAL.get(toks[i])!;
      t.general.push(inScope(i) ? g * NEGATION_DAMP : g);
    }
    if (v === undefined || v === 0) continue;
    let value = v * boost(toks, i);
    if (inScope(i) && !UNFLIPPED.has(toks[i])) {
      value *= NEGATION_DAMP;
      negUsed = true;
    }
    if (value < 0 && nearSolved(solved, i)) value *= SOLVED_DAMP;
    if (value > 0 && mannerOfTrouble(toks, i, lastNegativeAt)) value = -value;
    if (value < 0) lastNegativeAt = i;
    vals.push(value);
  }
  closeNegation();
  if (concededFrom >= 0) { for (let k = concededFrom; k < vals.length; k++) t.conceded.add(k); }
  for (let k = hypoStart; k < vals.length; k++) if (vals[k] > 0) vals[k] *= HYPOTHETICAL_DAMP;
}

/** The weighted sum, exclamation marks, and the score squashed into -1..1 with its label. */
function finish(raw: string, t: Tally, habit: boolean): TextSentiment {
  const { vals, contrastAt, conceded } = t;
  let sum = 0;
  for (let k = 0; k < vals.length; k++) {
    sum += vals[k] * (contrastAt <= 0 ? 1 : k < contrastAt ? 0.5 : 1.5) * (conceded.has(k) ? 0.5 : 1);
  }
  const bangs = Math.min((raw.match(/!/g) ?? []).length, 4);
  if (sum !== 0) sum += Math.sign(sum) * bangs * 0.3;
  const score = sum / Math.sqrt(sum * sum + 15);
  const label: SentimentLabel = score >= TEXT_THRESHOLD
    ? "positive"
    : score <= -TEXT_THRESHOLD
    ? "negative"
    : "neutral";
  return { score: Math.round(score * 1000) / 1000, label, hits: vals.length, habit };
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
