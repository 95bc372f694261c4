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

Deno.test("sentiment: clause-scoped negation, failing features, contrast, idioms, emoji", () => {
  const label = (s: string) => textSentiment(null, s).label;
  // A negation reaches four words but not past a comma or a sentence end.
  assert.equal(label("Never had any big problems with it"), "positive");
  assert.equal(label("Not perfect, but great"), "positive");
  assert.equal(label("No ads. Great"), "positive");
  // A negated verb with no opinion word is a feature that fails.
  assert.equal(label("Photos won't upload"), "negative");
  assert.equal(label("Checkout does nothing"), "negative");
  assert.equal(label("Readings don't sync anymore"), "negative", "'anymore' keeps its sign");
  assert.equal(label("Not only fast, it is also pretty"), "positive", "'not only' negates nothing");
  // What follows "but" outweighs what precedes; "nothing but" is no contrast.
  assert.equal(label("Nice design but it keeps crashing"), "negative");
  assert.equal(label("Had some bugs at first but now it is excellent"), "positive");
  assert.equal(label("The widget shows nothing but a grey screen"), "negative");
  // App-review idioms and rating numerals.
  assert.equal(label("Don't waste your money"), "negative");
  assert.equal(label("Worth every penny"), "positive");
  assert.equal(label("Price hike again"), "negative");
  assert.equal(label("10/10"), "positive");
  assert.equal(label("1 star"), "negative");
  assert.equal(label("waaay too big"), "negative");
  assert.equal(label("soooo gooood"), "positive");
  assert.equal(label("Can't add my account"), "negative", "'add' is not folded into 'ad'");
  assert.equal(label("Good app"), "positive", "'good app' is not the phrase 'better app'");
  assert.equal(label("Refund please"), "negative", "'please' is not 'pleased'");
  assert.equal(label("👍"), "positive");
  assert.equal(label("Super motivating. Not."), "negative");
});

Deno.test("intent: payments, malfunctions, requests against questions", () => {
  const t = (text: string, rating: number) =>
    classifyIntent(null, text, textSentiment(null, text).label, rating);
  assert.equal(
    t("Payment failed but my card was charged anyway", 1),
    "bug_report",
    "a failed payment is a bug",
  );
  assert.equal(t("They locked the workout log behind a paywall", 1), "price_complaint");
  assert.equal(t("Shipping is $12 now", 2), "price_complaint");
  assert.equal(
    t("I pay for a music app and get podcasts", 1),
    "other",
    "one payment word is no price complaint",
  );
  assert.equal(t("My saved playlists disappeared", 1), "bug_report");
  assert.equal(t("Episodes won't download on mobile data", 2), "bug_report");
  assert.equal(t("Good app, I'd like a unified inbox", 4), "feature_request");
  assert.equal(t("Needs a tablet layout", 3), "feature_request");
  assert.equal(t("Can I add a second passenger after booking?", 3), "question");
  assert.equal(t("Could you add an option to hide my status?", 5), "feature_request");
  assert.equal(t("Why does a keyboard need network access? Uninstalled.", 1), "other", "rhetorical");
  assert.equal(t("Why did my backup disappear? Is this expected?", 2), "question");
});

Deno.test("analysis: floors on the reviews written for this project (tests/fixtures/reviews)", async () => {
  const list: { stars: number; intent: string; text: string }[] = JSON.parse(
    await Deno.readTextFile(new URL("../../fixtures/reviews/authored_reviews.json", import.meta.url)),
  );
  assert.ok(list.length >= 400);
  let polar = 0, agree = 0, correct = 0;
  for (const r of list) {
    const s = textSentiment(null, r.text);
    if (r.stars !== 3) {
      polar++;
      if (s.label === (r.stars > 3 ? "positive" : "negative")) agree++;
    }
    if (classifyIntent(null, r.text, s.label, r.stars) === r.intent) correct++;
  }
  // Floors under the figures bench/feedback.ts reports, so that a change that loses ground is seen.
  assert.ok(agree / polar >= 0.82, `sentiment agreement ${agree / polar}`);
  assert.ok(correct / list.length >= 0.84, `intent accuracy ${correct / list.length}`);
});
