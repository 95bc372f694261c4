/**
 * Reviews stored in commits of many, by id and by date (lib/feedback/store.ts): an import that fails halfway
 * and is sent again stores each review once, in both; an edit moves its date key; a commit never passes KV's
 * limits; an app stored before the date keys is read as before, given its date keys by the job
 * (lib/feedback/review_dates.ts), then read by date, its answers the same.
 */
import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import {
  createApp,
  deleteApp,
  listReviews,
  stampOf,
  storeReviews,
  toStored,
} from "../../../lib/feedback/store.ts";
import { importReviews } from "../../../lib/feedback/import_reviews.ts";
import { ReviewCache } from "../../../lib/feedback/review_cache.ts";
import { dateApp, isDated } from "../../../lib/feedback/review_dates.ts";
import { reanalyseStale } from "../../../lib/feedback/reanalyse.ts";
import { loadAnalysis } from "../../../lib/feedback/analysis/on_demand.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { Deps } from "../../../lib/deps.ts";
import type { FeedbackApp, IncomingReview, StoredReview } from "../../../lib/feedback/types.ts";

const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 15);

function reviews(prefix: string, n: number, textChars = 0): IncomingReview[] {
  return Array.from({ length: n }, (_, i) => {
    const at = END - Math.floor(((i * 7919) % n) / n * 120 * DAY) - (i % 3 === 0 ? 0 : i);
    const text = `Review ${i}: the app crashes when I open the camera, please fix it.`;
    return {
      id: `${prefix}${i}`,
      rating: 1 + (i % 5),
      title: i % 2 ? `Title ${i}` : null,
      text: textChars ? text.padEnd(textChars, " and more words") : text,
      language: null,
      country: "US",
      version: "2.1",
      created_at: at,
      updated_at: at,
      reply: i % 4 === 0 ? { text: `Thanks Dana, we are on it (${i}).`, at: at + 1000 } : null,
      author: `Dana Reviewer ${i % 13}`,
    };
  });
}

const csv = (rs: IncomingReview[]) =>
  new TextEncoder().encode(
    "id,rating,title,text,date,author\n" +
      rs.map((r) =>
        [r.id, r.rating, r.title ?? "", `"${r.text}"`, new Date(r.created_at).toISOString(), r.author].join(
          ",",
        )
      ).join("\n") + "\n",
  );

async function dateKeys(kv: Deno.Kv, app: FeedbackApp): Promise<Deno.KvEntry<StoredReview>[]> {
  const out: Deno.KvEntry<StoredReview>[] = [];
  for await (const e of kv.list<StoredReview>({ prefix: keys.feedbackReviewsAt(app.org, app.id) })) {
    out.push(e);
  }
  return out;
}

/** Every review once by id and once by date, the two equal. */
async function assertOnceEach(kv: Deno.Kv, app: FeedbackApp, n: number) {
  const byId = await listReviews(kv, app.org, app.id);
  const byDate = await dateKeys(kv, app);
  assert.equal(byId.length, n);
  assert.equal(byDate.length, n, "one date key a review");
  const dated = new Map(byDate.map((e) => [e.value.id, e]));
  for (const r of byId) {
    const e = dated.get(r.id);
    assert.ok(e, `${r.id} has its date key`);
    assert.deepEqual(e.key, keys.feedbackReviewAt(app.org, app.id, r.created_at, r.id));
    assert.deepEqual(e.value, r);
  }
}

/** A KV whose commits of reviews fail (as a 5xx or a lost connection would) after `ok` of them. */
function failingAfter(kv: Deno.Kv, ok: number) {
  let commits = 0;
  return new Proxy(kv, {
    get(target, p) {
      if (p === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            if (++commits > ok) return Promise.reject(new Error("connection lost"));
            return commit();
          };
          return op;
        };
      }
      const v = Reflect.get(target, p, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function newApp(deps: Deps, storeId = "com.example.one") {
  return await createApp(deps.kv, deps.clock, "o", {
    store: "google_play",
    store_id: storeId,
    touchpoint: null,
  });
}

Deno.test("review import: a failure halfway, then the same file again: every review stored once, by id and by date", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  const rs = reviews("r", 500);
  await assert.rejects(importReviews(failingAfter(deps.kv, 2), app, csv(rs), "text/csv"), /connection lost/);
  const half = (await listReviews(deps.kv, app.org, app.id)).length;
  assert.ok(half > 0 && half < 500, `${half} stored before the failure`);
  assert.equal(
    (await dateKeys(deps.kv, app)).length,
    half,
    "a commit stores a review with its date key or neither",
  );
  assert.equal(await stampOf(deps.kv, app.org, app.id), 2n, "one stamp bump a commit");
  const again = await importReviews(deps.kv, app, csv(rs), "text/csv");
  assert.equal(again.imported, 500 - half);
  assert.equal(again.duplicates, half);
  await assertOnceEach(deps.kv, app, 500);
  const third = await importReviews(deps.kv, app, csv(rs), "text/csv");
  assert.deepEqual([third.imported, third.updated, third.duplicates], [0, 0, 500]);
  assert.ok(!JSON.stringify(await listReviews(deps.kv, app.org, app.id)).includes("Dana"), "author masked");
  deps.kv.close();
});

Deno.test("reviews: an edit to an earlier date moves its date key; one to a later date keeps the first date", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  const [r] = reviews("e", 1);
  await storeReviews(deps.kv, app, "import", [r]);
  await storeReviews(deps.kv, app, "import", [{ ...r, text: "Fixed now", created_at: r.created_at + DAY }]);
  await assertOnceEach(deps.kv, app, 1);
  assert.equal((await dateKeys(deps.kv, app))[0].value.created_at, r.created_at);
  await storeReviews(deps.kv, app, "import", [{ ...r, text: "Earlier", created_at: r.created_at - DAY }]);
  await assertOnceEach(deps.kv, app, 1);
  assert.equal((await dateKeys(deps.kv, app))[0].value.created_at, r.created_at - DAY);
  deps.kv.close();
});

Deno.test("reviews: long texts are stored in commits under KV's limits, every one once", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  // 11,000 characters each: 90 of them by id and by date are ~2 MB, past the 800 KB a commit takes
  const r = await storeReviews(deps.kv, app, "import", reviews("long", 120, 11_000));
  assert.deepEqual(r, { stored: 120, updated: 0, unchanged: 0 });
  await assertOnceEach(deps.kv, app, 120);
  assert.ok(await stampOf(deps.kv, app.org, app.id) > 2n, "more commits than 120 / 90");
  deps.kv.close();
});

/** Deps whose KV counts the review entries listed. */
function countingEntries(deps: Deps) {
  const counter = { entries: 0 };
  const kv = new Proxy(deps.kv, {
    get(target, p) {
      if (p === "list") {
        return async function* (...args: Parameters<Deno.Kv["list"]>) {
          for await (const e of target.list(...args)) {
            counter.entries++;
            yield e;
          }
        };
      }
      const v = Reflect.get(target, p, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { deps: { ...deps, kv } as Deps, counter };
}

Deno.test("reviews stored before date keys: read whole as before, dated by the job, then a period reads its months only, same answers", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  // As an app stored before the date keys: reviews by id only, no mark.
  await loadAnalysis();
  const rs = reviews("old", 300).map((r) => toStored(app, "import", r));
  for (let i = 0; i < rs.length; i += 50) {
    const op = deps.kv.atomic();
    for (const r of rs.slice(i, i + 50)) op.set(keys.feedbackReview(app.org, app.id, r.id), r);
    await op.sum(keys.feedbackStamp(app.org, app.id), 1n).commit();
  }
  await deps.kv.delete(keys.feedbackReviewsDated(app.org, app.id));
  // and one stored since, by the new code: it has its date key, the app is still not dated
  await storeReviews(deps.kv, app, "import", [{ ...reviews("new", 1)[0], created_at: END - DAY }]);
  assert.equal(await isDated(deps.kv, app), false);

  const periods: [number, number][] = [[END - 14 * DAY, END + 1], [END - 28 * DAY, END - 14 * DAY], [
    END - 200 * DAY,
    END + 1,
  ]];
  /** The answers, and the entries listed for the first two periods (a period and the one before it). */
  const answer = async (d: Deps, counter: { entries: number }) => {
    const cache = new ReviewCache(d);
    const out = [];
    let two = 0;
    for (const [from, to] of periods) {
      out.push(await cache.between(app.org, app.id, from, to));
      if (out.length === 2) two = counter.entries;
    }
    out.push(await new ReviewCache(d).get(app.org, app.id));
    return { out, two };
  };
  const before = countingEntries(deps);
  const { out: undated, two: undatedTwo } = await answer(before.deps, before.counter);
  assert.equal(undatedTwo, 301, "undated: the whole app by id for a period's read");
  assert.equal(undated[3].length, 301);

  // The job dates it in bounded runs, resuming where it stopped.
  assert.equal(await dateApp(deps, app, 120), 120);
  assert.equal(await isDated(deps.kv, app), false);
  await reanalyseStale(deps); // the review job's run finishes the pass
  assert.equal(await isDated(deps.kv, app), true);
  await assertOnceEach(deps.kv, app, 301);

  const after = countingEntries(deps);
  const { out: dated, two: datedTwo } = await answer(after.deps, after.counter);
  assert.deepEqual(dated, undated, "the same answers, in the same order");
  const months = undated[0].length + undated[1].length;
  assert.ok(
    datedTwo >= months && datedTwo < 301 * 0.6,
    `dated: two periods' reads list their months only (${datedTwo} entries, ${months} in the two periods)`,
  );
  deps.kv.close();
});

Deno.test("a new app is dated at the job's first run; after an import its reads by date equal KV's, within the budget", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  assert.equal(await isDated(deps.kv, app), false, "never assumed");
  assert.equal(await dateApp(deps, app, 100), 0);
  assert.equal(await isDated(deps.kv, app), true, "nothing to date: marked");
  await importReviews(deps.kv, app, csv(reviews("n", 400)), "text/csv");
  await assertOnceEach(deps.kv, app, 400);
  const all = (await listReviews(deps.kv, app.org, app.id)).sort((a, b) => b.created_at - a.created_at);
  const kv = (from: number, to: number) => all.filter((r) => r.created_at >= from && r.created_at < to);
  const { deps: counted, counter } = countingEntries(deps);
  const budget = 200_000; // about a third of the app
  const cache = new ReviewCache(counted, budget);
  const periods: [number, number][] = [
    [END - 30 * DAY, END + 1],
    [END - 60 * DAY, END - 30 * DAY],
    [END - 7 * DAY, END + 1],
    [END - 200 * DAY, END + 1], // more than the budget in one period
    [END - 90 * DAY, END - 60 * DAY],
  ];
  for (const [from, to] of periods) {
    assert.deepEqual(await cache.between(app.org, app.id, from, to), kv(from, to));
    assert.ok(cache.bytes <= budget, `${cache.bytes} > ${budget}`);
  }
  assert.deepEqual(await cache.get(app.org, app.id), all);
  const first = new ReviewCache(counted);
  const before = counter.entries;
  await first.between(app.org, app.id, END - 14 * DAY, END + 1);
  const read = counter.entries - before;
  assert.ok(read < 400 * 0.6, `a 14-day read listed ${read} of 400 reviews`);
  deps.kv.close();
});

Deno.test("deleting an app deletes its reviews by date and its mark too", async () => {
  const deps = await testDeps();
  const app = await newApp(deps);
  await dateApp(deps, app, 100);
  await storeReviews(deps.kv, app, "import", reviews("d", 30));
  assert.equal((await dateKeys(deps.kv, app)).length, 30);
  await deleteApp(deps.kv, app.org, app.id);
  assert.equal((await dateKeys(deps.kv, app)).length, 0);
  assert.equal(await isDated(deps.kv, app), false);
  deps.kv.close();
});
