import assert from "node:assert/strict";
import { analyzeReview } from "../../../lib/feedback/analysis/analyze.ts";
import { combinedSentiment, textSentiment } from "../../../lib/feedback/analysis/sentiment.ts";
import { classifyIntent } from "../../../lib/feedback/analysis/intent.ts";
import { lemma } from "../../../lib/feedback/analysis/tokens.ts";
import { topicsOf } from "../../../lib/feedback/themes/match.ts";
import { words } from "../../../lib/feedback/analysis/tokens.ts";

Deno.test("tokens: inflected forms meet", () => {
  for (
    const group of [["crash", "crashes", "crashed", "crashing"], ["freeze", "freezes", "froze", "freezing"], [
      "notification",
      "notifications",
    ], ["subscription", "subscriptions"]]
  ) {
    assert.equal(new Set(group.map(lemma)).size, 1, group.join(","));
  }
  assert.deepEqual(words("It doesn't work, I can't log in"), [
    "it",
    "does",
    "not",
    "work",
    "i",
    "can",
    "not",
    "log",
    "in",
  ]);
});

Deno.test("sentiment: negation, problem phrases without opinion words, but-clauses", () => {
  assert.equal(textSentiment(null, "Great app, works perfectly").label, "positive");
  assert.equal(textSentiment(null, "Not good at all").label, "negative");
  assert.equal(
    textSentiment(null, "Since the update I can't log in, it just doesn't open").label,
    "negative",
  );
  assert.equal(textSentiment(null, "Not bad, does the job").label, "positive");
  assert.equal(textSentiment(null, "I loved it at first but now it keeps crashing").label, "negative");
  assert.equal(textSentiment(null, "Used to work great, now every page is distorted").label, "negative");
  assert.equal(textSentiment(null, "The the the").label, "neutral");
});

Deno.test("sentiment: the stars decide where text and stars disagree", () => {
  const praise = textSentiment(null, "Great app");
  assert.equal(combinedSentiment(praise, 5), "positive");
  assert.equal(combinedSentiment(praise, 1), "negative", "a 1-star 'great app' is sarcasm or a mistake");
  assert.equal(combinedSentiment(textSentiment(null, "One small bug with the widget"), 5), "positive");
  assert.equal(combinedSentiment(textSentiment(null, "hmm"), 2), "negative", "no sentiment words: the stars");
  assert.equal(combinedSentiment(textSentiment(null, "Terrible"), 3), "negative");
});

Deno.test("intent: bug report, feature request, praise, question, price complaint, other", () => {
  const t = (text: string, rating: number) =>
    classifyIntent(null, text, textSentiment(null, text).label, rating);
  assert.equal(t("Keeps crashing when I open settings", 1), "bug_report");
  assert.equal(t("Login doesn't work since the update", 2), "bug_report");
  assert.equal(t("Please add a dark mode, would be great", 4), "feature_request");
  assert.equal(t("Love it, best app ever", 5), "praise");
  assert.equal(t("How do I export my data?", 3), "question");
  assert.equal(t("Way too expensive, the subscription doubled", 1), "price_complaint");
  assert.equal(t("I use it for work", 3), "other");
});

Deno.test("themes: taxonomy topics by words and phrases", () => {
  const topics = (s: string) => topicsOf(words(s).map(lemma));
  assert.deepEqual(topics("It crashed twice and I can't log in"), ["crashes_bugs", "login_account"]);
  assert.deepEqual(topics("Drains my battery"), ["performance_battery"]);
  assert.deepEqual(topics("Too many ads, and the subscription is pricey"), ["pricing_subscriptions", "ads"]);
  assert.deepEqual(topics("No dark mode"), ["ui_usability"]);
  assert.deepEqual(topics("lovely"), []);
});

Deno.test("analysis: an uncovered language counts but is not analysed", () => {
  const de = analyzeReview({
    rating: 2,
    title: null,
    text: "Die App stürzt ständig ab, seit dem letzten Update geht nichts mehr",
    language: null,
  });
  assert.equal(de.language, "de");
  assert.equal(de.analysed, false);
  assert.equal(de.sentiment, null);
  const en = analyzeReview({ rating: 5, title: "Superb", text: "Great app", language: null });
  assert.equal(en.analysed, true);
  assert.equal(en.sentiment, "positive");
  assert.equal(en.intent, "praise");
});
