import assert from "node:assert/strict";
import { loadCorpora, MINIBAR_HELD_OUT_APP } from "../../../scripts/review_corpora.ts";
import { measureIntent, measureSentiment, readAll } from "../../../bench/feedback_measures.ts";
import { analyzeReview } from "../../../lib/feedback/analysis/analyze.ts";
import { INTENTS } from "../../../lib/feedback/types.ts";
import model from "../../../lib/feedback/analysis/review_model.json" with { type: "json" };

const corpora = await loadCorpora();

Deno.test("learned models: the held-out split shares no review with the training reviews", () => {
  const train = new Set(corpora.train.map((r) => r.text));
  assert.ok(corpora.realHeldOut.length > 700, `${corpora.realHeldOut.length} held-out real reviews`);
  assert.ok(corpora.realAppHeldOut.length >= 2000, `${corpora.realAppHeldOut.length} held-out app reviews`);
  for (const r of [...corpora.realHeldOut, ...corpora.authoredHoldout, ...corpora.realAppHeldOut]) {
    assert.ok(!train.has(r.text), r.text);
  }
  // The held-out app is a whole app: not one of its reviews trains.
  assert.ok(corpora.realAppHeldOut.every((r) => r.app === MINIBAR_HELD_OUT_APP));
  assert.ok(!corpora.train.some((r) => r.app === MINIBAR_HELD_OUT_APP));
  assert.ok(corpora.realAppTrain.length >= 3900, `${corpora.realAppTrain.length} real app reviews train`);
  assert.equal(
    model.trained_on.sentiment,
    corpora.train.filter((r) => r.polarity).length,
    "weights are stale",
  );
});

Deno.test("learned models: on held-out real reviews they beat the rules alone and stay over the floors", () => {
  const read = readAll(corpora.realHeldOut);
  const before = measureSentiment(read, "before"), after = measureSentiment(read, "after");
  assert.ok(after.agreement > before.agreement, `${after.agreement} vs ${before.agreement}`);
  assert.ok(after.agreement >= 0.83, `agreement ${after.agreement}`);
  assert.ok(after.negative_agreement >= 0.8, `negatives caught ${after.negative_agreement}`);
  const held = readAll(corpora.authoredHoldout);
  const intent = measureIntent(held, "after")!;
  assert.ok(intent.macro_f1 >= 0.8, `authored held-out intent macro-F1 ${intent.macro_f1}`);
  assert.ok(intent.macro_f1 > measureIntent(held, "before")!.macro_f1);
});

Deno.test("learned models: on the real app reviews of an app never trained on, they beat the rules alone", () => {
  const read = readAll(corpora.realAppHeldOut);
  const before = measureSentiment(read, "before"), after = measureSentiment(read, "after");
  assert.ok(after.agreement > before.agreement, `${after.agreement} vs ${before.agreement}`);
  assert.ok(after.agreement >= 0.85, `agreement ${after.agreement}`);
  assert.ok(after.negative_agreement >= 0.8, `negatives caught ${after.negative_agreement}`);
  const intent = measureIntent(read, "after")!, rules = measureIntent(read, "before")!;
  assert.ok(intent.macro_f1 >= 0.8, `real held-out intent macro-F1 ${intent.macro_f1}`);
  assert.ok(intent.macro_f1 > rules.macro_f1, `${intent.macro_f1} vs rules ${rules.macro_f1}`);
  const feature = intent.per_intent.find((x) => x.intent === "feature_request")!;
  assert.ok(feature.recall >= 0.5, `feature requests found ${feature.recall}`);
});

Deno.test("learned models: six-class intent on the hand-labelled sample of the held-out app", () => {
  const sample = corpora.realAppHeldOutFiner;
  // At least 300 reviews carry our own finer labels, and every review of the sample has a label.
  assert.ok(sample.length >= 600, `${sample.length} reviews in the sample`);
  assert.ok(sample.filter((r) => r.intent === "praise" || r.intent === "other").length >= 290);
  assert.ok(sample.every((r) => r.intent && !r.coarse));
  const read = readAll(sample);
  const after = measureIntent(read, "after")!, before = measureIntent(read, "before")!;
  assert.ok(after.macro_f1 >= 0.74, `macro-F1 ${after.macro_f1}`);
  assert.ok(after.macro_f1 > before.macro_f1, `${after.macro_f1} vs rules ${before.macro_f1}`);
});

Deno.test("learned models: the intents are the documented ones; a short complaint is still read", () => {
  assert.deepEqual(model.intent.classes, [...INTENTS]);
  const a = (text: string, rating: number) => analyzeReview({ rating, title: null, text, language: "en" });
  assert.equal(a("Great app, easy to use and delivery tracking works perfectly.", 5).intent, "praise");
  assert.equal(a("The app crashes every time I open the camera.", 1).intent, "bug_report");
  assert.equal(a("Please add a dark mode.", 4).intent, "feature_request");
  assert.equal(a("How do I change my delivery address?", 3).intent, "question");
  assert.equal(a("Terrible. Waste of time.", 1).sentiment, "negative");
});
