/**
 * The labelled review sets that scripts/train_reviews.ts learns from and bench/feedback.ts measures on
 * (sources and licences in tests/fixtures/README.md), and the fixed held-out split: no weight and no rule
 * was drawn from a held-out review.
 * - authored: 800 app-store reviews written for this project (stars and intent): training;
 * - authored_holdout: 80 more, kept out of the rules' development and of training: held out;
 * - UCI "Sentiment Labelled Sentences" (Kotzias et al., KDD 2015; CC BY 4.0), real reviews with polarity
 *   labels, from npm sentiment@5.0.2's test fixtures: the Amazon sentences (whose misses the rules' authors
 *   read) train; of the Yelp and IMDb sentences, never used before, 40% (by a hash of the text) are held out
 *   and 60% train;
 * - Mini-BAR (Wei et al., ICTAI 2023; MIT): 6,000 real Google Play reviews of three health apps with their
 *   stars and human labels (problem report, feature request, or neither), vendored by
 *   scripts/import_minibar_reviews.ts: Garmin Connect and Huawei Health train; every Samsung Health review is
 *   held out (a whole app the models never saw), for agreement with the stars and for intent; a 31% sample
 *   of it also carries finer labels of ours (praise, question, price complaint, other) where Mini-BAR says
 *   neither, for six-class intent on real text.
 */
import type { Intent } from "../lib/feedback/types.ts";

export interface LabelledReview {
  id: string;
  /** The app reviewed, where the set names it. */
  app?: string;
  text: string;
  /** 1-5 stars; null where the set has only a polarity (then the classifier is not told any stars). */
  rating: number | null;
  polarity: "positive" | "negative" | null;
  intent?: Intent;
  /**
   * The set's labels tell only bug report, feature request or neither ("other"): an answer is folded the same
   * way (praise, question, price complaint and other are all "other") before it is compared.
   */
  coarse?: boolean;
  /** A second label (a review that is both a problem report and a feature request): either answer is right. */
  alsoIntent?: Intent;
}

/** Polarity from stars: 1-2 negative, 4-5 positive, 3 none (left out of the agreement). */
export const starPolarity = (rating: number): "positive" | "negative" | null =>
  rating <= 2 ? "negative" : rating >= 4 ? "positive" : null;

const ROOT = new URL("../", import.meta.url).pathname;
export const AUTHORED = `${ROOT}tests/fixtures/reviews/authored_reviews.json`;
export const HOLDOUT = `${ROOT}tests/fixtures/reviews/authored_holdout.json`;

export async function loadAuthored(path: string): Promise<LabelledReview[]> {
  const list: { id: string; stars: number; intent: Intent; text: string }[] = JSON.parse(
    await Deno.readTextFile(path),
  );
  return list.map((r) => ({
    id: r.id,
    text: r.text,
    rating: r.stars,
    polarity: starPolarity(r.stars),
    intent: r.intent,
  }));
}

/** One UCI file from the npm package (resolved through deno.json's `sentiment-corpus/`), or null. */
export async function loadUci(name: "amazon" | "yelp" | "imdb"): Promise<LabelledReview[] | null> {
  try {
    const mod = await import(`sentiment-corpus/test/fixtures/${name}.json`, { with: { type: "json" } });
    const list = mod.default as { text: string; class: number | null }[];
    return list.filter((x) => x.text && (x.class === 0 || x.class === 1)).map((x, i) => ({
      id: `${name}:${i}`,
      text: x.text,
      rating: null,
      polarity: x.class === 1 ? "positive" : "negative",
    }));
  } catch (e) {
    console.log(`uci ${name}: not available (${(e as Error).message})`);
    return null;
  }
}

/** FNV-1a of the text: a split that does not move when files are reordered. */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
export const MINIBAR = `${ROOT}tests/fixtures/reviews/minibar_reviews.json`;
/** The app whose reviews are all held out: the models and rules never saw a review of it. */
export const MINIBAR_HELD_OUT_APP = "Samsung Health";

export async function loadMinibar(path = MINIBAR): Promise<LabelledReview[]> {
  const list: {
    id: string;
    app: string;
    stars: number;
    problem_report: boolean;
    feature_request: boolean;
    text: string;
  }[] = JSON.parse(await Deno.readTextFile(path));
  return list.map((r) => ({
    id: `minibar:${r.id}`,
    app: r.app,
    text: r.text,
    rating: r.stars,
    polarity: starPolarity(r.stars),
    intent: r.problem_report ? "bug_report" : r.feature_request ? "feature_request" : "other",
    alsoIntent: r.problem_report && r.feature_request ? "feature_request" : undefined,
    coarse: true,
  }));
}

/** Texts that differ only in case, spacing or end punctuation count as one. */
const sameText = (text: string) => text.toLowerCase().replace(/[\s.!]+/g, " ").trim();

export const MINIBAR_FINER = `${ROOT}tests/fixtures/reviews/minibar_samsung_finer.json`;
/** The sample of the held-out app whose "neither" reviews carry finer labels of ours. */
const inFinerSample = (r: LabelledReview) => fnv(r.text) % 100 < 31;

/**
 * The held-out app's sample with six-class intent: Mini-BAR's labels for its problem reports and feature
 * requests, this project's own labels (praise, question, price complaint, other) for the reviews it labels
 * neither (tests/fixtures/reviews/minibar_samsung_finer.json, written blind to the analysis's answers).
 */
export async function finerSample(
  heldOut: LabelledReview[],
  path = MINIBAR_FINER,
): Promise<LabelledReview[]> {
  const { labels } = JSON.parse(await Deno.readTextFile(path)) as { labels: Record<string, Intent> };
  return heldOut.filter(inFinerSample).map((r) => {
    const ours = labels[r.id.replace(/^minibar:/, "")];
    if (r.intent === "other" && !ours) throw new Error(`${r.id}: no finer label in ${path}`);
    return { ...r, coarse: false, intent: r.intent === "other" ? ours : r.intent };
  });
}

export const isHeldOut = (r: LabelledReview) => fnv(r.text) % 10 < 4;

export interface Corpora {
  /** What the weights are learned from. */
  train: LabelledReview[];
  /** Real review text no rule or weight was drawn from. */
  realHeldOut: LabelledReview[];
  authored: LabelledReview[];
  authoredHoldout: LabelledReview[];
  amazon: LabelledReview[];
  /** Real app reviews of an app no rule or weight was drawn from (Mini-BAR's Samsung Health). */
  realAppHeldOut: LabelledReview[];
  /** A sample of realAppHeldOut with six-class intent (finer labels of ours where Mini-BAR has neither). */
  realAppHeldOutFiner: LabelledReview[];
  /** Real app reviews that train (Mini-BAR's Garmin Connect and Huawei Health). */
  realAppTrain: LabelledReview[];
}

export async function loadCorpora(): Promise<Corpora> {
  const authored = await loadAuthored(AUTHORED);
  const authoredHoldout = await loadAuthored(HOLDOUT);
  const amazon = (await loadUci("amazon")) ?? [];
  const fresh = [...((await loadUci("yelp")) ?? []), ...((await loadUci("imdb")) ?? [])];
  const minibar = await loadMinibar();
  const realAppTrain = minibar.filter((r) => r.app !== MINIBAR_HELD_OUT_APP);
  const realAppHeldOut = minibar.filter((r) => r.app === MINIBAR_HELD_OUT_APP);
  const heldOutTexts = new Set(
    [...fresh.filter(isHeldOut), ...authoredHoldout, ...realAppHeldOut].map((r) => sameText(r.text)),
  );
  return {
    // A text that also stands in a held-out set ("Great app!" is in every app's reviews) does not train.
    train: [...authored, ...amazon, ...fresh.filter((r) => !isHeldOut(r)), ...realAppTrain].filter((r) =>
      !heldOutTexts.has(sameText(r.text))
    ),
    realHeldOut: fresh.filter(isHeldOut),
    authored,
    authoredHoldout,
    amazon,
    realAppHeldOut,
    realAppHeldOutFiner: await finerSample(realAppHeldOut),
    realAppTrain,
  };
}
