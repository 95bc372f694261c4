/**
 * What a review is for, from cue phrases over normalized words, checked in order: a price complaint, a bug
 * report, a question, a feature request, praise, else other. A review has one intent; the order says which
 * wins when cues of several meet ("crashes, please add a fix?" is a bug report).
 */
import type { Intent, SentimentLabel } from "../types.ts";
import { lemma, normalizeText, words } from "./tokens.ts";

const seq = (phrases: string[]) => phrases.map((p) => p.split(" ").map(lemma));

const PRICE_WORDS = new Set(
  ("price pricing expensive overpriced cost costs pay paid paying money subscription subscriptions subscribe " +
    "refund refunds charge charged charges fee fees premium purchase purchased purchases cheaper cheap " +
    "dollar dollars euro euros bucks ripoff pricey billing billed trial")
    .split(" ").map(lemma),
);
const PRICE_PHRASES = seq([
  "rip off",
  "in app purchase",
  "pro version",
  "free version",
  "too much",
  "per month",
]);

const BUG_WORDS = new Set(
  ("crash crashes crashed crashing crashy bug bugs buggy glitch glitches glitchy error errors freeze freezes " +
    "freezing froze frozen broken broke hang hangs hanging corrupt corrupted lag laggy stuck unresponsive " +
    "fail fails failed failing failure")
    .split(" ").map(lemma),
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
  "can not log",
  "can not login",
  "can not sign",
  "can not open",
  "can not connect",
  "not connect",
  "force close",
  "black screen",
  "white screen",
  "please fix",
  "fix this",
  "fix it",
  "out of memory",
  "has stopped",
  "keep stop",
  "not responding",
  "does not",
  "unable to",
  "no longer",
  "since the update",
  "after the update",
  "since update",
  "after update",
  "after updating",
]);

const FEATURE_PHRASES = seq([
  "please add",
  "pls add",
  "plz add",
  "could you add",
  "can you add",
  "would be nice",
  "would be great",
  "would be awesome",
  "would love",
  "would like",
  "i wish",
  "wish it",
  "wish there",
  "wish you",
  "should add",
  "should have",
  "need an option",
  "needs an option",
  "option to",
  "ability to",
  "feature request",
  "add a",
  "add an",
  "add the",
  "add support",
  "support for",
  "hope you add",
  "hope to see",
  "like to see",
  "love to see",
  "allow us",
  "let us",
  "it would",
  "suggestion",
  "missing feature",
  "in the future",
  "next update",
  "how about",
]);

const QUESTION_START =
  /^(how|why|what|when|where|which|who|is there|are there|is it|can i|can you|could you|do you|does|does it|will|would|any way|anyone|anybody)\b/;
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

const PRAISE_CUES = new Set(
  ("love great awesome amazing excellent perfect best fantastic good nice wonderful thank thanks recommend " +
    "brilliant helpful useful beautiful favorite favourite superb")
    .split(" ").map(lemma),
);

function hasPhrase(lem: string[], phrases: string[][]): boolean {
  for (let i = 0; i < lem.length; i++) {
    for (const p of phrases) {
      if (p[0] === lem[i] && p.every((w, k) => lem[i + k] === w)) return true;
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
): Intent {
  const full = title ? `${title}. ${text}` : text;
  const lem = words(full).map(lemma);
  const lemSet = new Set(lem);
  const unhappy = sentiment === "negative" || rating <= 3;

  const price = lem.some((w) => PRICE_WORDS.has(w)) || hasPhrase(lem, PRICE_PHRASES) ||
    /[$€£]\s?\d/.test(full);
  if (price && unhappy) return "price_complaint";

  const bugWords = lem.filter((w) => BUG_WORDS.has(w)).length;
  const bug = bugWords > 0 || hasPhrase(lem, BUG_PHRASES);
  if (bug && (unhappy || bugWords > 0)) return "bug_report";

  const sentences = normalizeText(full).split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean);
  const asks =
    sentences.some((s) => s.endsWith("?") && (QUESTION_START.test(s) || s.split(" ").length <= 12)) ||
    hasPhrase(lem, QUESTION_PHRASES);
  const feature = hasPhrase(lem, FEATURE_PHRASES);
  if (asks && !feature) return "question";
  if (feature) return "feature_request";
  if (asks) return "question";

  if ((sentiment === "positive" || rating >= 4) && [...lemSet].some((w) => PRAISE_CUES.has(w))) {
    return "praise";
  }
  if (sentiment === "positive" && rating >= 4) return "praise";
  return "other";
}
