/**
 * Learns the weights of lib/feedback/analysis/learned.ts from the training reviews of scripts/review_corpora.ts
 * (never from a held-out one) and writes them, with their sources, to lib/feedback/analysis/review_model.json.
 *   deno run -A scripts/train_reviews.ts [--epochs 30]
 * Deterministic: the same sets give the same weights. Then `deno run -A bench/feedback.ts` measures them.
 */
import { textSentiment } from "../lib/feedback/analysis/sentiment.ts";
import { classifyIntent } from "../lib/feedback/analysis/intent.ts";
import { reviewFeatures } from "../lib/feedback/analysis/features.ts";
import { intentContext, sentimentWith } from "../lib/feedback/analysis/learned.ts";
import { withoutPersonal } from "../lib/feedback/analysis/personal.ts";
import { words } from "../lib/feedback/analysis/tokens.ts";
import { type Intent, INTENTS } from "../lib/feedback/types.ts";
import { type LabelledReview, loadCorpora } from "./review_corpora.ts";

const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const EPOCHS = Number(flag("epochs") ?? 30);
const MIN_COUNT = 2;
const OUT = new URL("../lib/feedback/analysis/review_model.json", import.meta.url).pathname;

const { train } = await loadCorpora();

/** Only features seen at least MIN_COUNT times: a word of one review teaches nothing general. */
function vocabulary(docs: string[][]): Set<string> {
  const n = new Map<string, number>();
  for (const d of docs) for (const f of d) n.set(f, (n.get(f) ?? 0) + 1);
  return new Set([...n].filter(([, c]) => c >= MIN_COUNT).map(([f]) => f));
}

// Deterministic order shuffles (a small LCG).
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = xs.slice();
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// --- sentiment: binary logistic regression with AdaGrad and L2 ---
const polar = train.filter((r) => r.polarity);
const sentAll = polar.map((r) => {
  const text = withoutPersonal(r.text);
  const rules = textSentiment(null, text);
  return {
    id: r.id,
    features: reviewFeatures(text),
    rule: rules.score,
    ruleLabel: rules.label,
    noRule: rules.hits === 0 ? 1 : 0,
    y: r.polarity === "positive" ? 1 : 0,
  };
});
type SentEx = (typeof sentAll)[number];

/** Trained with the rules' score as a feature, or (useRules false) over the words alone. */
function trainSentiment(examples: SentEx[], useRules: boolean) {
  const vocab = vocabulary(examples.map((e) => e.features));
  const exs = examples.map((e) => ({
    ...e,
    features: e.features.filter((f) => vocab.has(f)),
    rule: useRules ? e.rule : 0,
    noRule: useRules ? e.noRule : 0,
  }));
  const sw = new Map<string, number>(), sg = new Map<string, number>();
  let bias = 0, rule = 0, noRule = 0;
  const g2 = { bias: 1e-8, rule: 1e-8, noRule: 1e-8 };
  const LR = 0.3, L2 = 1e-4;
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (const ex of shuffled(exs, 7 + epoch)) {
      let z = bias + rule * ex.rule + noRule * ex.noRule;
      for (const f of ex.features) z += sw.get(f) ?? 0;
      const g = 1 / (1 + Math.exp(-z)) - ex.y;
      for (const f of ex.features) {
        const w = sw.get(f) ?? 0, grad = g + L2 * w;
        const acc = (sg.get(f) ?? 1e-8) + grad * grad;
        sg.set(f, acc);
        sw.set(f, w - (LR / Math.sqrt(acc)) * grad);
      }
      g2.bias += g * g;
      bias -= (LR / Math.sqrt(g2.bias)) * g;
      const gr = g * ex.rule + L2 * rule;
      g2.rule += gr * gr;
      rule -= (LR / Math.sqrt(g2.rule)) * gr;
      const gn = g * ex.noRule;
      g2.noRule += gn * gn;
      noRule -= (LR / Math.sqrt(g2.noRule)) * gn;
    }
  }
  return { bias, rule, noRule, weights: sw };
}

const NEUTRAL_BAND = 0.05;
function sentimentLabel(
  m: ReturnType<typeof trainSentiment>,
  e: SentEx,
): "positive" | "negative" | "neutral" {
  let z = m.bias + m.rule * e.rule + m.noRule * e.noRule;
  for (const f of e.features) z += m.weights.get(f) ?? 0;
  const score = 2 / (1 + Math.exp(-z)) - 1;
  return score > NEUTRAL_BAND ? "positive" : score < -NEUTRAL_BAND ? "negative" : "neutral";
}

/** Whether the rules earn their place: 5-fold cross-validation on the training reviews, with and without. */
const FOLDS = 5;
const foldOf = (id: string) => [...id].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % FOLDS;
const gold = (e: SentEx) => (e.y ? "positive" : "negative");
const sentCv = (useRules: boolean) => {
  const models = Array.from(
    { length: FOLDS },
    (_, k) => trainSentiment(sentAll.filter((e) => foldOf(e.id) !== k), useRules),
  );
  return sentAll.filter((e) => sentimentLabel(models[foldOf(e.id)], e) === gold(e)).length / sentAll.length;
};
const sentRulesAlone = sentAll.filter((e) => e.ruleLabel === gold(e)).length / sentAll.length;
const withRules = sentCv(true), wordsOnly = sentCv(false);
const useRules = withRules > wordsOnly;
console.log(
  `sentiment, 5-fold on training: rules alone ${sentRulesAlone.toFixed(3)}, words alone ${
    wordsOnly.toFixed(3)
  }, ` +
    `words and rules ${withRules.toFixed(3)}: ${useRules ? "the rules stay" : "the rules go"}`,
);
const sentFinal = trainSentiment(sentAll, useRules);
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const sentimentModel = {
  bias: r3(sentFinal.bias),
  rule: r3(sentFinal.rule),
  no_rule: r3(sentFinal.noRule),
  neutral_band: NEUTRAL_BAND,
  cv_agreement: { rules: r3(sentRulesAlone), words: r3(wordsOnly), words_and_rules: r3(withRules) },
  weights: Object.fromEntries(
    [...sentFinal.weights].filter(([, w]) => Math.abs(w) >= 0.02).sort((a, b) => a[0].localeCompare(b[0]))
      .map(([f, w]) => [f, r3(w)]),
  ),
};
const sentEx = sentAll;

// --- intent: multinomial logistic regression over the same words plus the rules' answer ---
const classes = [...INTENTS];
/**
 * A set that tells only bug report, feature request or neither (Mini-BAR): "neither" takes the finer intent
 * the rules give when it is one of the neither kinds, else praise at 4-5 stars and other below.
 */
function finerIntent(r: LabelledReview, ruleIntent: Intent): Intent {
  if (!r.coarse || r.intent !== "other") return r.intent!;
  if (ruleIntent !== "bug_report" && ruleIntent !== "feature_request") return ruleIntent;
  return (r.rating ?? 3) >= 4 ? "praise" : "other";
}
const withIntent = train.filter((r) => r.intent).map((r) => {
  const text = withoutPersonal(r.text);
  const features = reviewFeatures(text);
  const rules = textSentiment(null, text);
  const ruleIntent = classifyIntent(null, text, rules.label, r.rating ?? 3, rules.habit);
  return {
    id: r.id,
    y: classes.indexOf(finerIntent(r, ruleIntent)),
    coarse: r.coarse === true,
    /** The set's own label and second label (for a coarse set, what the measure compares against). */
    gold: classes.indexOf(r.intent!),
    also: r.alsoIntent ? classes.indexOf(r.alsoIntent) : -1,
    rule: classes.indexOf(ruleIntent),
    features: [
      ...features,
      ...intentContext(ruleIntent, sentimentWith(sentimentModel, features, rules).label, r.rating),
    ],
  };
});
type IntentEx = (typeof withIntent)[number];

/** How many times an authored (finely labelled) review counts in intent training, beside the coarse sets. */
const AUTHORED_WEIGHT = Number(flag("authored-weight") ?? 1);

/**
 * How much rarer intents weigh in training (0: not at all, 1: fully balanced classes). 1 by the training
 * folds: their intent score was 0.820 at 0, 0.827 at 0.5 and 0.829 at 1.
 */
const BALANCE = Number(flag("balance") ?? 1);

function trainIntent(given: IntentEx[]) {
  const examples = given.flatMap((e) => e.coarse ? [e] : Array(AUTHORED_WEIGHT).fill(e) as IntentEx[]);
  const vocab = vocabulary(examples.map((e) => e.features));
  const iw = new Map<string, number[]>(), ig = new Map<string, number[]>();
  const bias = classes.map(() => 0), biasG = classes.map(() => 1e-8);
  const ILR = 0.2, IL2 = 1e-3;
  // Rarer intents weigh more (BALANCE 0: all alike; 1: each class as heavy as any other), as macro-F1 counts
  // every class alike.
  const count = classes.map((_, c) => examples.filter((e) => e.y === c).length);
  const weightOf = count.map((n) => n ? Math.pow(examples.length / (classes.length * n), BALANCE) : 0);
  const exs = examples.map((e) => ({
    y: e.y,
    weight: weightOf[e.y],
    features: e.features.filter((f) => vocab.has(f)),
  }));
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (const ex of shuffled(exs, 11 + epoch)) {
      const s = bias.slice();
      for (const f of ex.features) {
        const w = iw.get(f);
        if (w) { for (let c = 0; c < s.length; c++) s[c] += w[c]; }
      }
      const max = Math.max(...s);
      const e = s.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      const grad = e.map((x, c) => (x / sum - (c === ex.y ? 1 : 0)) * ex.weight);
      for (const f of ex.features) {
        let w = iw.get(f), g = ig.get(f);
        if (!w) iw.set(f, w = classes.map(() => 0));
        if (!g) ig.set(f, g = classes.map(() => 1e-8));
        for (let c = 0; c < classes.length; c++) {
          const gc = grad[c] + IL2 * w[c];
          g[c] += gc * gc;
          w[c] -= (ILR / Math.sqrt(g[c])) * gc;
        }
      }
      for (let c = 0; c < classes.length; c++) {
        biasG[c] += grad[c] * grad[c];
        bias[c] -= (ILR / Math.sqrt(biasG[c])) * grad[c];
      }
    }
  }
  return { bias, weights: iw };
}

function predictIntent(m: ReturnType<typeof trainIntent>, e: IntentEx, ruleFirst: Set<number>): number {
  if (ruleFirst.has(e.rule)) return e.rule;
  const s = m.bias.slice();
  for (const f of e.features) {
    const w = m.weights.get(f);
    if (w) { for (let c = 0; c < s.length; c++) s[c] += w[c]; }
  }
  let best = 0;
  for (let c = 1; c < s.length; c++) if (s[c] > s[best]) best = c;
  return best;
}

function macroF1(pairs: [gold: number, got: number][]): number {
  const f1s: number[] = [];
  for (let c = 0; c < classes.length; c++) {
    const tp = pairs.filter(([g, p]) => g === c && p === c).length;
    const gold = pairs.filter(([g]) => g === c).length, got = pairs.filter(([, p]) => p === c).length;
    if (!gold) continue;
    const pr = got ? tp / got : 0, rc = tp / gold;
    f1s.push(pr + rc ? (2 * pr * rc) / (pr + rc) : 0);
  }
  return f1s.reduce((a, b) => a + b, 0) / f1s.length;
}

/**
 * Which of the rules' intents to trust over the model: 5-fold cross-validation on the training reviews
 * (never the held-out ones); a class's rule goes first unless that lowers the folds' score by more than
 * 0.002: a tie goes to the rule, which a person can read (and which keeps the short price complaints the
 * real training sets hardly hold: their health-app reviews seldom talk about price).
 */
const foldModels = Array.from(
  { length: FOLDS },
  (_, k) => trainIntent(withIntent.filter((e) => foldOf(e.id) !== k)),
);
const OTHER = classes.indexOf("other"), BUG = classes.indexOf("bug_report");
const FEATURE = classes.indexOf("feature_request");
/**
 * The cross-validation score: macro-F1 on the finely labelled reviews and, on a coarse set, macro-F1 against
 * its own labels with the answer folded to bug report, feature request or other (as bench/feedback.ts
 * measures it), averaged; the imputed finer labels of a coarse set are never the yardstick.
 */
function intentScore(examples: IntentEx[], predict: (e: IntentEx) => number): number {
  const fine: [number, number][] = [], coarse: [number, number][] = [];
  for (const e of examples) {
    const p = predict(e);
    if (!e.coarse) fine.push([e.y, p]);
    else {
      const folded = p === BUG || p === FEATURE ? p : OTHER;
      coarse.push([folded === e.also ? folded : e.gold, folded]);
    }
  }
  return coarse.length ? (macroF1(fine) + macroF1(coarse)) / 2 : macroF1(fine);
}
const cv = (ruleFirst: Set<number>) =>
  intentScore(withIntent, (e) => predictIntent(foldModels[foldOf(e.id)], e, ruleFirst));
const rulesOnly = intentScore(withIntent, (e) => e.rule);
// The same folds without the rules' answer among the features: what the words alone would do.
const noRuleFeature = withIntent.map((e) => ({
  ...e,
  features: e.features.filter((f) => !f.startsWith("rule=")),
}));
const wordsOnlyModels = Array.from(
  { length: FOLDS },
  (_, k) => trainIntent(noRuleFeature.filter((e) => foldOf(e.id) !== k)),
);
const intentWordsOnly = intentScore(
  noRuleFeature,
  (e) => predictIntent(wordsOnlyModels[foldOf(e.id)], e, new Set()),
);
console.log(`intent, 5-fold on training: words alone ${intentWordsOnly.toFixed(3)}`);
let ruleFirst = new Set<number>();
let best = cv(ruleFirst);
console.log(
  `intent, 5-fold on training: rules alone ${rulesOnly.toFixed(3)}, model with rules as features ${
    best.toFixed(3)
  }`,
);
for (let c = 0; c < classes.length; c++) {
  const tried = new Set([...ruleFirst, c]);
  const f = cv(tried);
  console.log(`  rule first for ${classes[c]}: ${f.toFixed(3)}`);
  if (f >= best - 0.002) {
    best = Math.max(best, f);
    ruleFirst = tried;
  }
}
const final = trainIntent(withIntent);
const intentModel = {
  classes,
  rule_first: [...ruleFirst].map((c) => classes[c]),
  cv_macro_f1: { rules: r3(rulesOnly), words: r3(intentWordsOnly), words_and_rules: r3(cv(ruleFirst)) },
  bias: final.bias.map(r3),
  weights: Object.fromEntries(
    [...final.weights].filter(([, w]) => w.some((x) => Math.abs(x) >= 0.02)).sort((a, b) =>
      a[0].localeCompare(b[0])
    ).map(([f, w]) => [f, w.map(r3)]),
  ),
};

/**
 * English words for language detection (analysis/language.ts): every word written in at least ENGLISH_MIN
 * training reviews of the English sets. A word of another language turns up in one or two reviews at most,
 * so it stays out.
 */
const ENGLISH_MIN = 4;
const wordReviews = new Map<string, number>();
for (const r of train) {
  for (const w of new Set(words(r.text))) wordReviews.set(w, (wordReviews.get(w) ?? 0) + 1);
}
const english = [...wordReviews].filter(([w, n]) => n >= ENGLISH_MIN && w.length > 1).map(([w]) => w).sort();

const model = {
  about:
    "Weights of lib/feedback/analysis/learned.ts, written by scripts/train_reviews.ts; do not edit by hand.",
  sources: [
    "tests/fixtures/reviews/authored_reviews.json (this project's own; stars and intent)",
    "UCI Sentiment Labelled Sentences (Kotzias, Denil, de Freitas, Smyth, KDD 2015; CC BY 4.0) via npm " +
    "sentiment@5.0.2 test/fixtures: amazon.json, and the 60% of yelp.json and imdb.json not held out",
    "Mini-BAR (Wei et al., ICTAI 2023; MIT) via tests/fixtures/reviews/minibar_reviews.json: the Garmin " +
    "Connect and Huawei Health reviews (stars; problem report, feature request or neither); Samsung Health " +
    "held out",
  ],
  trained_on: { sentiment: sentEx.length, intent: withIntent.length },
  epochs: EPOCHS,
  authored_weight: AUTHORED_WEIGHT,
  balance: BALANCE,
  sentiment: sentimentModel,
  intent: intentModel,
  english_words: english,
};
await Deno.writeTextFile(OUT, JSON.stringify(model) + "\n");
// Formatted as the repository's formatter leaves it, so a retrain's diff shows the weights that moved.
await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", OUT] }).output();
console.log(
  `sentiment: ${sentEx.length} reviews, ${Object.keys(sentimentModel.weights).length} weights ` +
    `(rule ${sentimentModel.rule}); intent: ${withIntent.length} reviews, rules first for ` +
    `${intentModel.rule_first.join(", ") || "none"}, ` +
    `${Object.keys(intentModel.weights).length} features; wrote ${OUT}`,
);
