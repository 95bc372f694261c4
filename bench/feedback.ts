/**
 * App-review understanding, measured on a labelled public review corpus (tests/fixtures/README.md):
 * - sentiment agreement of the text sentiment with star polarity (1-2 stars negative, 4-5 positive; a
 *   neutral answer counts as a miss), overall and on the negative reviews, over the reviews the models
 *   analyse (English); targets: at least 85% overall and 75% on the negative reviews;
 * - intent macro-F1 over the hand-labelled reviews (target 0.70), when the labels file is there;
 * - themes over 100,000 analysed reviews, warm (target at most 1 s), beside a bare loop that only counts
 *   topics over the same reviews (the reference);
 * - analysis speed (reviews a second).
 *   deno run -A bench/feedback.ts [--corpus file.csv] [--labels file.json] [--reviews 100000] [--warm 5]
 * The corpus is the URR replication package's reviews.csv (MIT); its default places are listed below.
 * Writes bench/results/feedback.json.
 */
import { analyzeReview } from "../lib/feedback/analysis/analyze.ts";
import { textSentiment } from "../lib/feedback/analysis/sentiment.ts";
import { classifyIntent } from "../lib/feedback/analysis/intent.ts";
import { csvRecords } from "../lib/feedback/sources/import.ts";
import { themeReport } from "../lib/feedback/themes/aggregate.ts";
import type { Intent, StoredReview } from "../lib/feedback/types.ts";
import { INTENTS } from "../lib/feedback/types.ts";

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
const N = Number(flag("reviews") ?? 100_000);
const WARM = Number(flag("warm") ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

interface Row {
  id: string;
  app: string;
  rating: number;
  text: string;
}

async function loadCorpus(): Promise<{ path: string; rows: Row[] } | null> {
  for (const path of CORPUS_PLACES) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch {
      continue;
    }
    const recs = csvRecords(text);
    const head = recs.shift()!.cells;
    const at = (name: string) => head.indexOf(name);
    const rows = recs.map((r) => ({
      id: r.cells[at("_id")],
      app: r.cells[at("app")],
      rating: Number(r.cells[at("ratingStars")]),
      text: r.cells[at("reviewText")] ?? "",
    })).filter((r) => r.rating >= 1 && r.rating <= 5 && r.text);
    return { path, rows };
  }
  return null;
}

const corpus = await loadCorpus();
const results: Record<string, unknown> = { at: new Date().toISOString() };
if (!corpus) {
  console.log(`no corpus found (looked in ${CORPUS_PLACES.join(", ")}); see tests/fixtures/README.md`);
} else {
  // Sentiment of the text alone against star polarity, on the reviews the models analyse.
  let n = 0, agree = 0, neg = 0, negAgree = 0, pos = 0, posAgree = 0, skipped = 0;
  const t0 = performance.now();
  const analysed = corpus.rows.map((r) => ({
    r,
    a: analyzeReview({ rating: r.rating, title: null, text: r.text, language: null }),
  }));
  const analyseMs = performance.now() - t0;
  for (const { r, a } of analysed) {
    if (r.rating === 3) continue;
    if (!a.analysed) {
      skipped++;
      continue;
    }
    const want = r.rating <= 2 ? "negative" : "positive";
    const got = textSentiment(null, r.text).label;
    n++;
    if (got === want) agree++;
    if (want === "negative") {
      neg++;
      if (got === want) negAgree++;
    } else {
      pos++;
      if (got === want) posAgree++;
    }
  }
  results.corpus = {
    path: corpus.path,
    reviews: corpus.rows.length,
    polar_analysed: n,
    polar_not_analysed: skipped,
  };
  results.sentiment = {
    agreement: agree / n,
    negative_agreement: negAgree / neg,
    positive_agreement: posAgree / pos,
    negative_reviews: neg,
    positive_reviews: pos,
    targets: { agreement: 0.85, negative_agreement: 0.75 },
  };
  results.analysis_per_second = Math.round(corpus.rows.length / (analyseMs / 1000));
  console.log(
    `sentiment vs stars: ${pct(agree / n)} overall (target 85%), ${pct(negAgree / neg)} of ${neg} negative ` +
      `(target 75%), ${
        pct(posAgree / pos)
      } of ${pos} positive; ${skipped} polar reviews not analysed (language)`,
  );
  console.log(`analysis: ${results.analysis_per_second} reviews/s`);

  // Intent macro-F1 over the hand labels.
  let labels: Record<string, Intent> | null = null;
  try {
    labels = JSON.parse(await Deno.readTextFile(LABELS));
  } catch {
    console.log(`intent: no labels at ${LABELS}; macro-F1 not measured`);
  }
  if (labels) {
    const byId = new Map(corpus.rows.map((r) => [r.id, r]));
    const tp = new Map<Intent, number>(), fp = new Map<Intent, number>(), fn = new Map<Intent, number>();
    let count = 0;
    for (const [id, gold] of Object.entries(labels)) {
      const r = byId.get(id);
      if (!r) continue;
      count++;
      const got = classifyIntent(null, r.text, textSentiment(null, r.text).label, r.rating);
      const inc = (m: Map<Intent, number>, k: Intent) => m.set(k, (m.get(k) ?? 0) + 1);
      if (got === gold) inc(tp, gold);
      else {
        inc(fp, got);
        inc(fn, gold);
      }
    }
    const f1s = INTENTS.filter((i) => (tp.get(i) ?? 0) + (fn.get(i) ?? 0) > 0).map((i) => {
      const t = tp.get(i) ?? 0, p = t + (fp.get(i) ?? 0), g = t + (fn.get(i) ?? 0);
      const prec = p ? t / p : 0, rec = g ? t / g : 0;
      return { intent: i, f1: prec + rec ? (2 * prec * rec) / (prec + rec) : 0, support: g };
    });
    const macro = f1s.reduce((s, x) => s + x.f1, 0) / f1s.length;
    results.intent = { labelled: count, macro_f1: macro, per_intent: f1s, target: 0.7 };
    console.log(
      `intent: macro-F1 ${macro.toFixed(3)} over ${count} labelled reviews (target 0.70); ` +
        f1s.map((x) => `${x.intent} ${x.f1.toFixed(2)} (${x.support})`).join(", "),
    );
  }

  // Themes over N reviews: the corpus's analysed reviews repeated over 60 days.
  const base: StoredReview[] = analysed.filter((x) => x.a.analysed).map(({ r, a }, i) => ({
    v: 1,
    app: "bench",
    store: "google_play",
    id: `${r.id}:${i}`,
    source: "import",
    rating: r.rating,
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
    warm_ms: median(times),
    reference_ms: median(refs),
    target_ms: 1000,
  };
  console.log(
    `themes over ${N} reviews (+${N} previous): ${median(times).toFixed(1)} ms warm (target 1000 ms); ` +
      `bare topic count ${median(refs).toFixed(1)} ms (ratio ${(median(times) / median(refs)).toFixed(1)})`,
  );
}
await Deno.mkdir(`${ROOT}bench/results`, { recursive: true });
await Deno.writeTextFile(`${ROOT}bench/results/feedback.json`, JSON.stringify(results, null, 2));
