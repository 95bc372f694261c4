/** Reviews stored under an older analysis version are re-analysed: in bounded batches by the review job. */
import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { createApp, listReviews, stampOf, storeReviews } from "../../../lib/feedback/store.ts";
import { reanalyseApp, reanalyseStale, refreshStale } from "../../../lib/feedback/reanalyse.ts";
import { loadAnalysis } from "../../../lib/feedback/analysis/on_demand.ts";
import { ANALYSIS_VERSION, analyzeReview } from "../../../lib/feedback/analysis/analyze.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { IncomingReview, StoredReview } from "../../../lib/feedback/types.ts";

await loadAnalysis(); // refreshStale below re-analyses synchronously

const TEXTS = [
  "Keeps crashing since the update",
  "Love it, works great",
  "Way too expensive for what it does",
  "Please add a dark mode",
  "Logs me out every day",
];

const review = (i: number): IncomingReview => ({
  id: `r${String(i).padStart(2, "0")}`,
  rating: i % 5 === 1 ? 5 : 2,
  title: null,
  text: TEXTS[i % TEXTS.length],
  language: null,
  country: null,
  version: "1.0",
  created_at: Date.UTC(2026, 10, 1) + i,
  updated_at: null,
  reply: null,
  author: null,
});

/** Every stored review of the app as an older analysis left it: neutral, other, no topics. */
async function ageAll(kv: Deno.Kv, org: string, app: string) {
  for await (const e of kv.list<StoredReview>({ prefix: keys.feedbackReviews(org, app) })) {
    await kv.set(e.key, {
      ...e.value,
      analysis: {
        ...e.value.analysis,
        v: ANALYSIS_VERSION - 1,
        sentiment: "neutral",
        intent: "other",
        topics: [],
      },
    });
  }
}

const current = (r: StoredReview) =>
  JSON.stringify(r.analysis) ===
    JSON.stringify(analyzeReview({ rating: r.rating, title: r.title, text: r.text, language: r.language }));

Deno.test("re-analysis: the job rewrites stale reviews in bounded batches, resuming where it stopped", async () => {
  const deps = await testDeps();
  const app = await createApp(deps.kv, deps.clock, "o", {
    store: "app_store",
    store_id: "12345678",
    touchpoint: null,
  });
  await storeReviews(deps.kv, app, "import", Array.from({ length: 25 }, (_, i) => review(i)));
  await ageAll(deps.kv, "o", app.id);
  const stale = async () => (await listReviews(deps.kv, "o", app.id)).filter((r) => !current(r)).length;
  assert.equal(await stale(), 25);

  let stamp = await stampOf(deps.kv, "o", app.id);
  for (const [expected, left] of [[10, 15], [10, 5], [5, 0]]) {
    assert.deepEqual(await reanalyseStale(deps, 10), { apps: 1, reviews: expected });
    assert.equal(await stale(), left);
    const next = await stampOf(deps.kv, "o", app.id);
    assert.ok(next > stamp, "caches of other instances reload");
    stamp = next;
  }
  // Complete: a later run reads one key and writes nothing.
  assert.deepEqual(await reanalyseStale(deps, 10), { apps: 0, reviews: 0 });
  assert.equal(await stampOf(deps.kv, "o", app.id), stamp);
  const all = await listReviews(deps.kv, "o", app.id);
  assert.ok(all.every((r) => r.analysis.v === ANALYSIS_VERSION));
  assert.equal(all.find((r) => r.id === "r00")!.analysis.intent, "bug_report");
  deps.kv.close();
});

Deno.test("re-analysis: the scan is bounded too, and a pass of an older version starts over", async () => {
  const deps = await testDeps();
  const app = await createApp(deps.kv, deps.clock, "o", {
    store: "app_store",
    store_id: "12345678",
    touchpoint: null,
  });
  await storeReviews(deps.kv, app, "import", Array.from({ length: 12 }, (_, i) => review(i)));
  // A pass recorded complete by an older version does not hold for this one.
  await deps.kv.set(keys.feedbackReanalysis("o", app.id), {
    v: ANALYSIS_VERSION - 1,
    cursor: null,
    complete: true,
  });
  await ageAll(deps.kv, "o", app.id);
  assert.equal(await reanalyseApp(deps, app, 100, 5), 5, "5 listed, 5 rewritten");
  assert.equal(await reanalyseApp(deps, app, 100, 5), 5);
  assert.equal(await reanalyseApp(deps, app, 100, 5), 2);
  assert.equal(await reanalyseApp(deps, app, 100, 5), 0);
  assert.ok((await listReviews(deps.kv, "o", app.id)).every(current));
  deps.kv.close();
});

Deno.test("re-analysis on read: at most the budget of stale reviews, the input left as it was", async () => {
  const deps = await testDeps();
  const app = await createApp(deps.kv, deps.clock, "o", {
    store: "app_store",
    store_id: "12345678",
    touchpoint: null,
  });
  await storeReviews(deps.kv, app, "import", Array.from({ length: 6 }, (_, i) => review(i)));
  await ageAll(deps.kv, "o", app.id);
  const loaded = await listReviews(deps.kv, "o", app.id);
  const fresh = refreshStale(loaded, 4);
  assert.equal(fresh.filter(current).length, 4);
  assert.equal(loaded.filter(current).length, 0);
  deps.kv.close();
});
