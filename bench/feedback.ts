/**
 * App-review understanding, measured on every labelled set this machine has (tests/fixtures/README.md):
 * - "authored": 800 app-store reviews written and labelled for this project (stars and intent), committed;
 *   the analysis rules were developed against them;
 * - "authored_holdout": 80 more, written after the rules and kept out of their development;
 * - "uci_amazon": the 1,000 Amazon product-review sentences of the UCI "Sentiment Labelled Sentences"
 *   (Kotzias et al., KDD 2015; CC BY 4.0), read at run time from the npm package sentiment@5.0.2 (MIT),
 *   which ships them as test/fixtures/amazon.json; polarity labels only;
 * - "urr": the URR replication package's reviews.csv (MIT) with intent labels, when the file is present.
 * On each: sentiment agreement of the text alone with the labelled polarity (1-2 stars negative, 4-5
 * positive; a neutral answer is a miss), overall and on the negative reviews (targets 85% and 75%), and
 * intent macro-F1 where there are intent labels (target 0.70). Then themes over 100,000 analysed reviews,
 * warm (target at most 1 s), beside a bare loop that only counts topics over the same reviews (the
 * reference), and analysis speed.
 *   deno run -A bench/feedback.ts [--corpus file.csv] [--labels file.json] [--reviews 100000] [--warm 5]
 * Writes bench/results/feedback.json.
 */
import { analyzeReview } from "../lib/feedback/analysis/analyze.ts";
import { csvRecords } from "../lib/feedback/sources/import.ts";
import { themeReport } from "../lib/feedback/themes/aggregate.ts";
import type { Intent, StoredReview } from "../lib/feedback/types.ts";
import {
  type LabelledReview,
  measureIntent,
  measureSentiment,
  printIntent,
  printSentiment,
  starPolarity,
} from "./feedback_measures.ts";

const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
};
const ROOT = new URL("../", import.meta.url).pathname;
const CORPUS_PLACES = [
  flag("corpus"),
  Deno.env.get("REVIEW_CORPUS"),
  `${ROOT}../shared/data/reviews/urr_reviews.csv`,
  `${ROOT}data/corpus/urr_reviews.csv`,
].filter((p): p is string => !!p);
const LABELS = flag("labels") ?? `${ROOT}tests/fixtures/reviews/intent_labels.json`;
const AUTHORED = `${ROOT}tests/fixtures/reviews/authored_reviews.json`;
const HOLDOUT = `${ROOT}tests/fixtures/reviews/authored_holdout.json`;
const N = Number(flag("reviews") ?? 100_000);
const WARM = Number(flag("warm") ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function loadUrr(): Promise<{ path: string; rows: LabelledReview[] } | null> {
  for (const path of CORPUS_PLACES) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch {
      continue;
    }
    let labels: Record<string, Intent> = {};
    try {
      labels = JSON.parse(await Deno.readTextFile(LABELS));
    } catch {
      console.log(`urr: no intent labels at ${LABELS}`);
    }
    const recs = csvRecords(text);
    const head = recs.shift()!.cells;
    const at = (name: string) => head.indexOf(name);
    const rows: LabelledReview[] = [];
    for (const r of recs) {
      const id = r.cells[at("_id")], rating = Number(r.cells[at("ratingStars")]);
      const text = r.cells[at("reviewText")] ?? "";
      if (!(rating >= 1 && rating <= 5 && text)) continue;
      rows.push({ id, rating, text, polarity: starPolarity(rating), intent: labels[id] });
    }
    return { path, rows };
  }
  return null;
}

async function loadAuthored(path: string): Promise<LabelledReview[]> {
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

/** The UCI Amazon sentences from the npm package, or null when it cannot be resolved here. */
async function loadUciAmazon(): Promise<LabelledReview[] | null> {
  try {
    const mod = await import("sentiment-corpus/test/fixtures/amazon.json", { with: { type: "json" } });
    const list = mod.default as { text: string; class: number | null }[];
    return list.filter((x) => x.text && (x.class === 0 || x.class === 1)).map((x, i) => ({
      id: `amazon:${i}`,
      text: x.text,
      rating: null,
      polarity: x.class === 1 ? "positive" : "negative",
    }));
  } catch (e) {
    console.log(`uci_amazon: not available (${(e as Error).message})`);
    return null;
  }
}

const results: Record<string, unknown> = { at: new Date().toISOString(), sets: {} };
const sets = results.sets as Record<string, unknown>;
const urr = await loadUrr();
if (!urr) {
  console.log(`urr: no corpus found (looked in ${CORPUS_PLACES.join(", ")}); see tests/fixtures/README.md`);
}
const authored = await loadAuthored(AUTHORED);
const holdout = await loadAuthored(HOLDOUT);
const amazon = await loadUciAmazon();
const named: [string, string, LabelledReview[] | null][] = [
  ["authored", AUTHORED, authored],
  ["authored_holdout", HOLDOUT, holdout],
  ["uci_amazon", "npm:sentiment@5.0.2/test/fixtures/amazon.json", amazon],
  ["urr", urr?.path ?? "", urr?.rows ?? null],
];
for (const [name, source, rows] of named) {
  if (!rows) continue;
  const sentiment = measureSentiment(rows);
  const intent = measureIntent(rows);
  sets[name] = { source, reviews: rows.length, sentiment, intent };
  printSentiment(name, sentiment);
  if (intent) printIntent(name, intent);
}
(results as Record<string, unknown>).targets = {
  agreement: 0.85,
  negative_agreement: 0.75,
  intent_macro_f1: 0.7,
};

// Analysis speed and themes over N reviews: the analysed reviews of every set repeated over 60 days.
const pool = [...(urr?.rows ?? []), ...authored, ...holdout, ...(amazon ?? [])];
const t0 = performance.now();
const analysed = pool.map((r) => ({
  r,
  a: analyzeReview({ rating: r.rating ?? 3, title: null, text: r.text, language: null }),
}));
results.analysis_per_second = Math.round(pool.length / ((performance.now() - t0) / 1000));
console.log(`analysis: ${results.analysis_per_second} reviews/s over ${pool.length}`);
const base: StoredReview[] = analysed.filter((x) => x.a.analysed).map(({ r, a }, i) => ({
  v: 1,
  app: "bench",
  store: "google_play",
  id: `${r.id}:${i}`,
  source: "import",
  rating: r.rating ?? (r.polarity === "negative" ? 1 : 5),
  title: null,
  text: r.text,
  language: "en",
  country: null,
  version: null,
  created_at: 0,
  updated_at: 0,
  reply: null,
  author_hash: null,
  content_hash: "",
  analysis: a,
}));
const start = Date.parse("2026-09-01T00:00:00Z");
const all: StoredReview[] = Array.from({ length: N * 2 }, (_, i) => ({
  ...base[i % base.length],
  created_at: start + Math.floor((i / (N * 2)) * 60 * 86_400_000),
}));
const prev = all.slice(0, N), cur = all.slice(N);
themeReport(cur, prev); // warm up
const times: number[] = [], refs: number[] = [];
for (let k = 0; k < WARM; k++) {
  let t = performance.now();
  const rep = themeReport(cur, prev);
  times.push(performance.now() - t);
  if (rep.themes.length === 0) throw new Error("no themes");
  t = performance.now();
  const counts = new Map<string, number>();
  for (const r of cur) for (const x of r.analysis.topics) counts.set(x, (counts.get(x) ?? 0) + 1);
  for (const r of prev) for (const x of r.analysis.topics) counts.set(x, (counts.get(x) ?? 0) + 1);
  refs.push(performance.now() - t);
}
results.themes = {
  reviews: N,
  previous_reviews: N,
  distinct_reviews: base.length,
  warm_ms: median(times),
  reference_ms: median(refs),
  target_ms: 1000,
};
console.log(
  `themes over ${N} reviews (+${N} previous, ${base.length} distinct): ${median(times).toFixed(1)} ms warm ` +
    `(target 1000 ms); bare topic count ${median(refs).toFixed(1)} ms (ratio ${
      (median(times) / median(refs)).toFixed(1)
    })`,
);
await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
await Deno.writeTextFile(`${ROOT}bench/results/feedback.json`, JSON.stringify(results, null, 2));
