/**
 * What a review is for, from cue phrases over normalized words (no phrase spans a comma). A review has one
 * intent; checked in order:
 * 1. price complaint: an unhappy review with a price cue (price, fee, subscription, paywall, an amount, an
 *    amount per month), or with two payment cues ("paid", "charged", "refund") and no sign of a malfunction;
 *    a price praised ("good prices") is no cue;
 * 2. bug report: a bug word or phrase ("crash", "won't load"), though a content review (4-5 stars, positive
 *    words) mentioning one in passing needs a plea to fix it; in an unhappy review, also a malfunction
 *    ("disappeared", "logs me out", "keeps loading", "by itself", a feature that doesn't or never does
 *    something; the reviewer deleting the app is none);
 * 3. question and feature request: a request ("please add", "I'd love", "needs a", a sentence opening
 *    "Needs …" or "Missing …") beats a question; a question ("how do I", "can I ...?") beats a weak feature
 *    cue ("add a", "option to"); a rhetorical "why does it need ...", "why even ..." is no question;
 * 4. praise: a positive review with a praise word, or positive text and stars (not a habit told plainly:
 *    "use it every day" is a statement);
 * 5. other.
 */
import type { Intent, SentimentLabel } from "../types.ts";
import { lemma, normalizeText, STOPWORDS, words } from "./tokens.ts";

/** Phrases as lemma sequences, indexed by their first lemma. */
type Phrases = Map<string, string[][]>;
const seq = (phrases: string[]): Phrases => {
  const out: Phrases = new Map();
  for (const p of phrases) {
    const parts = words(p).map(lemma);
    out.set(parts[0], [...(out.get(parts[0]) ?? []), parts]);
  }
  return out;
};
const set = (list: string) => new Set(list.split(/\s+/).map(lemma));

const PRICE_WORDS = set(
  "price prices pricing expensive overpriced cost costs money subscription subscriptions fee fees premium " +
    "cheaper pricey ripoff dollar dollars euro euros bucks paywall paywalled greedy membership tier plan",
);
const PAYMENT_WORDS = set(
  "pay paid paying payment charge charged charges purchase purchased purchases refund refunds billing " +
    "billed trial subscribe subscribed renewal",
);
const PRICE_PHRASES = seq([
  "rip off",
  "in app purchase",
  "pro version",
  "free version",
  "free plan",
  "free tier",
  "cash grab",
  "money grab",
  "waste of money",
  "behind a paywall",
]);

/** An amount per period ("4.99 a month", "40 a year", "$3/week"): not "once a year". */
const AMOUNT_PER =
  /\d\s*(?:[$€£]|dollars?|euros?|bucks|pounds)?\s*(?:\/|a|per|every|each)\s*(?:month|year|week|mo|yr|wk)\b/;
/** "costs too much", "pay too much", "too much money": "too much gamification" is no price. */
const COSTS_TOO_MUCH =
  /\b(?:cost|costs|charge|charges|charging|pay|paying|ask|asking) (?:way )?too much\b|\btoo much (?:money|for)\b/;

const BUG_WORDS = set(
  "crash crashes crashed crashing crashy bug bugs buggy glitch glitches glitchy error errors freeze freezes " +
    "freezing froze frozen broken broke hang hangs hanging corrupt corrupted lag laggy stuck unresponsive " +
    "fail fails failed failing failure",
);
const BUG_PHRASES = seq([
  "not work",
  "not working",
  "stop work",
  "stopped working",
  "not open",
  "not load",
  "not loading",
  "not show",
  "not sync",
  "not download",
  "not upload",
  "not connect",
  "not let me",
  "can not log",
  "can not login",
  "can not sign",
  "can not open",
  "can not see",
  "can not add",
  "can not send",
  "force close",
  "closes itself",
  "black screen",
  "white screen",
  "grey screen",
  "blank page",
  "blank screen",
  "please fix",
  "fix this",
  "fix it",
  "out of memory",
  "has stopped",
  "keep stop",
  "not responding",
  "unable to",
  "no longer",
  "since the update",
  "after the update",
  "since the last update",
  "after the last update",
  "since the latest update",
  "after the latest update",
  "since update",
  "after update",
  "after updating",
  "out of sync",
  "logs me out",
  "log me out",
  "logging me out",
  "logged out",
  "does nothing",
  "way off",
]);
const PLEAS = seq(["please fix", "pls fix", "plz fix", "fix this", "fix it", "needs fixing"]);
/** Malfunctions that make a bug report when the review is unhappy. */
const MALFUNCTION_WORDS = set(
  "disappear disappears disappeared vanish vanished reset resets drop drops dropped skip skips stutter " +
    "stutters spins loops empties drain drains rejected invalid wrong offline blank flaky random randomly " +
    "duplicates deleted deletes miscategorized stops stopped cancels expire expires late delayed slow " +
    "inaccurate lost missing blurry pixelated distorted pending ignores ignored sideways twice gone",
);
const MALFUNCTION_PHRASES = seq([
  "cuts out",
  "every time",
  "keeps saying",
  "never came",
  "off by",
  "by itself",
  "on its own",
  "on their own",
  "half the time",
  "grey box",
  "gray box",
  "nothing loads",
  "nothing happens",
  "nothing shows",
]);
const DELETE = lemma("deleted");
const UNINSTALL =
  /\b(?:(?:i|i've|i'm|we)\s+(?:just\s+)?delet\w*|delet(?:ed|ing|e)\s+(?:it|this|the app|after|now)\b|delet(?:ed|ing)\s*(?:[.!]|$))/;
/** "keeps logging me out", "keep loading the same stories": something done again and again, unasked. */
const REPEATED = /\bkeeps? (?!using|playing|coming|getting better|me\b|up\b|track\b)[a-z]+ing\b/;
/** A negated verb: "won't download", "never recognize", "hasn't updated". */
const FAILING_NEGATION = /\b(?:not|never)\s+([a-z]+)/g;
/** After "not": words that make no failing verb ("not saying much", "not in my country", "not good"). */
const NOT_A_VERB = new Set([
  ...STOPWORDS,
  ..."sure saying bad good great worth enough much many happy fun cheap free impressed big fan".split(" "),
]);
const failingNegation = (norm: string) =>
  [...norm.matchAll(FAILING_NEGATION)].some((m) => !NOT_A_VERB.has(m[1]));

const FEATURE_REQUESTS = seq([
  "please add",
  "pls add",
  "plz add",
  "could you add",
  "can you add",
  "could you guys add",
  "can you guys add",
  "please bring back",
  "bring back",
  "would be nice",
  "would be great",
  "would be awesome",
  "would be perfect",
  "would be cool",
  "would make it",
  "would help",
  "would give",
  "would love",
  "would like",
  "i'd love",
  "i'd like",
  "i wish",
  "only wish",
  "wish it",
  "wish there",
  "wish you",
  "wish i could",
  "should add",
  "need a",
  "needs a",
  "need an",
  "needs an",
  "need more",
  "needs more",
  "needs a way",
  "i really need",
  "want to be able",
  "let me",
  "let us",
  "allow us",
  "feature request",
  "add support",
  "hope you add",
  "hope to see",
  "like to see",
  "love to see",
  "suggestion",
  "missing feature",
  "only missing",
  "if there was",
  "if there were",
  "if you add",
  "in the future",
  "next update",
  "how about",
  "lacks",
  "still no way",
  "no way to",
]);
/** A sentence that opens by naming what is lacking: "Needs chapter support.", "Missing batch editing." */
const REQUEST_START =
  /^(?:(?:it |this app |the app |app )?(?:needs|need)|missing|give us|bring back)\s+(?!work\b|fixing\b|to be fixed\b|improvement)/;
const FEATURE_CUES = seq([
  "add a",
  "add an",
  "add the",
  "option to",
  "ability to",
  "support for",
  "it would",
  "should have",
]);

const QUESTION_START =
  /^(how|why|what|when|where|which|who|is there|are there|is it|is the|can i|can we|can you|could you|do you|does|will|would|any way|anyone|anybody)\b/;
const QUESTION_PHRASES = seq([
  "how do i",
  "how can i",
  "how to",
  "is there a way",
  "is there any way",
  "is there an option",
  "any way to",
  "does anyone know",
  "can someone",
  "i was wondering",
  "i wonder",
]);
/** Questions that ask nothing: "why does a keyboard need my contacts?", "why even call it free?" */
const RHETORICAL =
  /^why (?:do|does|would|should) .*\bneed\b|^why even\b|^when will (?:i|anyone) ever\b|^who (?:asked|thought|wants)\b|^what(?:'s| is) the point\b|^seriously\b/;

const PRAISE_CUES = set(
  "love great awesome amazing excellent perfect best fantastic good nice wonderful thank thanks recommend " +
    "brilliant helpful useful beautiful favorite favourite superb impressed incredible",
);

/** Lemmas clause by clause, a "|" between clauses: no cue phrase spans a comma ("does, nothing"). */
const lemmasOf = (norm: string) => norm.split(/[.!?;,:\n]+/).flatMap((c) => [...words(c).map(lemma), "|"]);

const PRICE_PRAISED =
  /\b(?:good|great|fair|low|cheap|reasonable|decent|affordable|nice|best|amazing|unbeatable) (?:prices?|deals?|value)\b|\b(?:prices?|pricing) (?:is|are) (?:good|great|fair|low|reasonable|decent|fine|ok|okay)\b/g;

function hasPhrase(lem: string[], phrases: Phrases): boolean {
  for (let i = 0; i < lem.length; i++) {
    for (const p of phrases.get(lem[i]) ?? []) {
      if (p.every((w, k) => lem[i + k] === w)) return true;
    }
  }
  return false;
}

/** The intent of one review (title and text), given its text sentiment and star rating. */
export function classifyIntent(
  title: string | null,
  text: string,
  sentiment: SentimentLabel,
  rating: number,
  habitOnly = false,
): Intent {
  const full = title ? `${title}. ${text}` : text;
  const norm = normalizeText(full);
  const lem = lemmasOf(norm);
  const unhappy = sentiment === "negative" || rating <= 3;

  const bugWords = lem.some((w) => BUG_WORDS.has(w));
  const bug = bugWords || hasPhrase(lem, BUG_PHRASES);
  // "Deleted." / "deleting it": the reviewer removing the app, not the app losing their things.
  const removedApp = UNINSTALL.test(norm);
  const malfunction = bug || lem.some((w) => MALFUNCTION_WORDS.has(w) && !(removedApp && w === DELETE)) ||
    hasPhrase(lem, MALFUNCTION_PHRASES) || failingNegation(norm) || REPEATED.test(norm);

  // "good prices", "the price is fair": a price praised is no price complaint.
  const unpraised = norm.replace(PRICE_PRAISED, " ");
  const priceLem = unpraised === norm ? lem : lemmasOf(unpraised);
  const priceCue = priceLem.some((w) => PRICE_WORDS.has(w)) || hasPhrase(priceLem, PRICE_PHRASES) ||
    /[$€£]\s?\d|\d\s?[$€£]/.test(full) || AMOUNT_PER.test(norm) || COSTS_TOO_MUCH.test(norm);
  const payments = lem.filter((w) => PAYMENT_WORDS.has(w)).length;
  if (unhappy && (priceCue && !bugWords || payments >= 2 && !malfunction)) return "price_complaint";

  // A content review (4-5 stars, positive words) that mentions a bug in passing is praise, unless it
  // pleads for a fix.
  const content = sentiment === "positive" && rating >= 4;
  if (bug && (unhappy || bugWords && (!content || hasPhrase(lem, PLEAS)))) return "bug_report";

  const sentences = norm.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean);
  const asks =
    sentences.some((s) =>
      s.endsWith("?") && !RHETORICAL.test(s) && (QUESTION_START.test(s) || s.split(" ").length <= 12)
    ) || hasPhrase(lem, QUESTION_PHRASES);
  if (hasPhrase(lem, FEATURE_REQUESTS) || sentences.some((x) => REQUEST_START.test(x))) {
    return "feature_request";
  }
  if (asks) return "question";
  if (unhappy && malfunction) return "bug_report";
  if (hasPhrase(lem, FEATURE_CUES)) return "feature_request";

  if ((sentiment === "positive" || rating >= 4) && lem.some((w) => PRAISE_CUES.has(w))) return "praise";
  // A habit told plainly ("use it every day") is a statement, not praise.
  if (sentiment === "positive" && rating >= 4 && !habitOnly) return "praise";
  return "other";
}
