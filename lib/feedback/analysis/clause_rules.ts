/**
 * The rules that read a word in its clause, for sentiment.ts: what negates and how far, what contrasts or
 * concedes, and the app-review patterns a word means only beside others ("keeps logging me out", "too
 * small", "the crash is fixed", "breaks easily").
 */
import { ACCUSTOMED, NEGATOR_PHRASES, NEGATORS } from "./lexicon.ts";
import { GENERAL, phraseAt, valence } from "./valence.ts";
import { lemma, STOPWORDS } from "./tokens.ts";
import { own } from "./own.ts";

/** Words after a negator that it reaches ("never had any big problems"). */
export const SCOPE = 4;
/** "I don't think it is good": a negated opinion verb reaches the end of its clause. */
export const RAISING = new Set(["think", "believe", "feel", "find"]);
export const NEGATION_DAMP = -0.74;
/**
 * Words that keep their sign under a negation: those that only go with one ("doesn't sync anymore"), and
 * a refund, which a complaint asks for and whose absence is worse ("no refund", "never refunded").
 */
export const UNFLIPPED = new Set(["anymore", "whatsoever", "refund", "refunds", "refunded"]);

/** Negators whose scope holds no opinion word still say something failed ("it won't open", "no reply"). */
const FAILING = new Set(["not", "never", "nothing", "no"]);
export const FAILING_VALUE = -1.2;
const NOT_A_FAILURE_NEXT = new Set(["only", "just", "to", "sure", "that", "mention", "bad", "a", "the"]);
/** "no account needed": what one can do without is no failure. */
const NOT_A_FAILURE_AFTER = new Set(["needed", "required", "necessary"]);

export interface Negation {
  /** Tokens it reaches. */
  scope: number;
  /** What it says when it negates no opinion word ("won't load", "no longer syncs"), or null. */
  failing: number | null;
  /** "used to", "no longer": a past state, which negates fixed phrases too ("used to love it"). */
  past: boolean;
  /** Tokens it is made of. */
  length: number;
}

/** The negation starting at token i, or null: "not", "never", "no longer", "used to", "less" + opinion. */
export function negationAt(toks: string[], i: number): Negation | null {
  const pair = own(NEGATOR_PHRASES, `${toks[i]} ${toks[i + 1]}`);
  if (pair !== undefined && !(toks[i] === "used" && ACCUSTOMED.has(toks[i - 1]))) {
    return { scope: SCOPE, failing: pair, past: true, length: 2 };
  }
  // "not only" and "nothing but" negate nothing.
  if (NEGATORS.has(toks[i]) && toks[i + 1] !== "only" && toks[i + 1] !== "but") {
    return {
      scope: RAISING.has(toks[i + 1]) ? toks.length : SCOPE,
      failing: FAILING.has(toks[i]) ? FAILING_VALUE : null,
      past: false,
      length: 1,
    };
  }
  // "less creepy", "less buggy": "less" before an opinion word lowers it, a negation of one word.
  const next = toks[i + 1];
  if (toks[i] === "less" && next && (valence(next) !== undefined || GENERAL.has(next))) {
    return { scope: 1, failing: null, past: false, length: 1 };
  }
  return null;
}

/** Whether a negation at `at` that negated no opinion word tells of a failure. */
export function failureOf(toks: string[], at: number): boolean {
  const next = toks[at + 1] ?? "";
  // "not only", "not sure", "not a …": no failure follows; but "not a single reply" is one.
  if (NOT_A_FAILURE_NEXT.has(next) && !(next === "a" && toks[at + 2] === "single")) return false;
  return !toks.slice(at + 1, at + 4).some((w) => NOT_A_FAILURE_AFTER.has(w));
}

const CONTRAST = new Set(["but", "however", "except", "unfortunately", "sadly"]);

/**
 * "but", "however": what follows weighs more. Not "nothing but a grey box", "all but", "not only slow,
 * but also ugly" (adds, does not contrast).
 */
export function contrastAt(toks: string[], i: number): boolean {
  if (!CONTRAST.has(toks[i])) return false;
  if (toks[i] !== "but") return true;
  return !["nothing", "anything", "all"].includes(toks[i - 1]) && toks[i + 1] !== "also" &&
    toks[i + 2] !== "also";
}

/** Words that open a conceded clause ("although it crashes sometimes, I love it"): the other clause speaks. */
const CONCESSIVE = new Set(["although", "despite", "albeit"]);

/** "although", "despite", "even though", "even if"; "though" unless it ends its clause ("good app though"). */
export function concessiveAt(toks: string[], i: number): boolean {
  if (toks[i] === "even") return toks[i + 1] === "though" || toks[i + 1] === "if";
  if (toks[i] === "though") return i < toks.length - 1 && toks[i - 1] !== "even";
  return CONCESSIVE.has(toks[i]);
}

/** "If you add tags, I'll give it five stars": where the hypothetical starts in a clause, or -1. */
export function hypotheticalFrom(toks: string[]): number {
  const at = toks.indexOf("if");
  return at >= 0 && toks[at - 1] !== "even" && toks[at - 1] !== "as" ? at : -1;
}

/** "like" is an opinion as a verb ("I really like it"), not as a preposition ("fees like 3%"). */
const LIKERS = new Set(
  ("i we you they kids really also just i'd would definitely do still actually kinda genuinely i'll we'd " +
    "totally to did people everyone wife husband daughter son").split(" "),
);
export const notAnOpinion = (toks: string[], i: number) => toks[i] === "like" && !LIKERS.has(toks[i - 1]);

/** The user's own choice to go on ("I'll keep using it"), not something the app does again and again. */
const CHOSEN = new Set(["i", "we", "i'll", "we'll", "will", "to", "i'd", "can"]);
const UNCHOSEN_NEXT = new Set(["getting", "having", "seeing", "receiving", "losing", "running"]);
export const REPEAT_VALUE = -1.5;

/**
 * "It keeps logging me out", "keeps skipping songs": keep + a verb in -ing with no valence of its own is a
 * thing that happens again and again unasked (an opinion word after "keep" counts itself: "keeps getting
 * better", "keeps crashing").
 */
export function repeatedUnwanted(toks: string[], i: number): boolean {
  if (!/^(keep|keeps|kept|keeping)$/.test(toks[i])) return false;
  const next = toks[i + 1];
  if (!next?.endsWith("ing") || next.length < 5 || valence(next) !== undefined) return false;
  if (phraseAt(toks.slice(i + 1).map(lemma), 0)) return false;
  return !CHOSEN.has(toks[i - 1]) || UNCHOSEN_NEXT.has(next);
}

export const TOO_VALUE = -1.5;

/**
 * "too big", "too small", "too long": "too" before a word of no valence, or of mild praise, is a complaint
 * (past the right measure); before a strong opinion word ("too good", "too slow") it only intensifies.
 */
export function tooMuch(toks: string[], i: number): boolean {
  const next = toks[i + 1];
  if (toks[i] !== "too" || !next || STOPWORDS.has(next)) return false;
  const v = valence(next);
  return v === undefined || v > 0 && v <= 1;
}

const SOLVED = new Set(["fixed", "fixes", "resolved", "solved", "sorted"]);
const SOLVED_REACH = 4;
export const SOLVED_DAMP = 0.2;

/** Where a clause says a problem was solved ("fixed", "resolved"), not under a negation ("still not fixed"). */
export function solvedIn(toks: string[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < toks.length; i++) {
    if (!SOLVED.has(toks[i])) continue;
    const before = toks.slice(Math.max(0, i - 3), i);
    if (!before.some((w) => NEGATORS.has(w) || w === "yet")) out.push(i);
  }
  return out;
}
export const nearSolved = (solved: number[], i: number) =>
  solved.some((r) => Math.abs(r - i) <= SOLVED_REACH);

/** "breaks easily", "drains quickly": speed and ease take the sign of the trouble just before them. */
const MANNER = new Set(["quickly", "easily", "fast", "quick", "easy", "rapidly", "instantly"]);
export const mannerOfTrouble = (toks: string[], i: number, lastNegativeAt: number) =>
  MANNER.has(toks[i]) && i - lastNegativeAt <= 3;

/** "Great otherwise.", "Good overall.", "but great": a closing word of praise that weighs the rest is meant. */
const SINCERE_FRAME = new Set([
  ..."otherwise overall now still though anyway apart mostly".split(" "),
  ..."but however yet".split(" "), // "Not perfect, but great": a contrast, no sneer
]);

/**
 * "Charged twice, no refund. Nice.": a bare word of praise (the clause's one value, at most two words)
 * closing a review of failures is a sneer.
 */
export function sneers(toks: string[], value: number, prior: number[]): boolean {
  if (toks.length > 2 || value <= 0 || toks.some((w) => SINCERE_FRAME.has(w))) return false;
  return prior.some((v) => v <= -1) && prior.reduce((a, b) => a + b, 0) < 0;
}
