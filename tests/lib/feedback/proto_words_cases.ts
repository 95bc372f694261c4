// Words that are also names of Object.prototype's members ("constructor" is an ordinary word in reviews of
// site builders, and Spanish for builder) read like any other noun: the analysis's word tables answer only
// their own entries. Before, lemma("constructor") was the function Object and the sentiment score NaN
// ("neutral"), so a complaint or praise holding the word was lost. The review's probe texts.
import assert from "node:assert/strict";
import { readReview } from "../../../lib/feedback/analysis/analyze.ts";
import { lemma } from "../../../lib/feedback/analysis/tokens.ts";
import { boost, valence } from "../../../lib/feedback/analysis/valence.ts";

const WORDS = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "isPrototypeOf"];
const TEXTS = [
  "The builder screen crashes every time, terrible",
  "Very builder good app",
  "Really good builder, love it",
];

Deno.test("review analysis: a word named like an Object member reads like any other noun", () => {
  for (const word of WORDS) {
    assert.equal(typeof lemma(word.toLowerCase()), "string", word);
    assert.equal(valence(word.toLowerCase()), undefined, word);
    assert.equal(boost([word.toLowerCase(), "good"], 1), 1, word);
    for (const text of TEXTS) {
      const plain = readReview(null, text, null);
      const odd = readReview(null, text.replace("builder", word), null);
      assert.ok(Number.isFinite(odd.rules.score) && Number.isFinite(odd.text.score), `${word}: ${text}`);
      assert.equal(odd.rules.label, plain.rules.label, `${word}: ${text}`);
      assert.equal(odd.text.label, plain.text.label, `${word}: ${text}`);
      assert.equal(odd.intent, plain.intent, `${word}: ${text}`);
    }
  }
  const es = readReview(null, "El constructor de informes es muy bueno", null);
  assert.equal(es.text.label, "positive");
});
