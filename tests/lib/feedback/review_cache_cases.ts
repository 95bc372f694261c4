/**
 * The review cache keeps at most its byte budget, however many reviews are asked, and answers as an uncached read
 * of KV does: every review of an app (`get`) or a period's (`between`), newest first, a write seen at once.
 */
import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { createApp, listReviews, storeReviews } from "../../../lib/feedback/store.ts";
import { reviewBytes, ReviewCache } from "../../../lib/feedback/review_cache.ts";
import type { Deps } from "../../../lib/deps.ts";
import type { FeedbackApp, IncomingReview, StoredReview } from "../../../lib/feedback/types.ts";

const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 15);
const SENTENCES = [
  "The app crashes every time I open the camera since the last update.",
  "Love the new design, everything is easier to find and it feels fast.",
  "Way too expensive for what it offers, the subscription doubled this year.",
  "Please add a dark mode and an option to export my data as a spreadsheet.",
  "Support answered quickly and fixed my account, thank you very much.",
];

/** `n` reviews of a few hundred characters over the 120 days before END, each at its own instant. */
function reviews(prefix: string, n: number): IncomingReview[] {
  return Array.from({ length: n }, (_, i) => {
    const at = END - Math.floor(((i * 7919) % n) / n * 120 * DAY) - i;
    return {
      id: `${prefix}${i}`,
      rating: 1 + (i % 5),
      title: i % 3 ? `Title ${i}` : null,
      text: [0, 1, 2, 3].map((k) => SENTENCES[(i + k) % SENTENCES.length]).join(" "),
      language: null,
      country: "US",
      version: "2.1",
      created_at: at,
      updated_at: at,
      reply: i % 7 === 0 ? { text: "Thanks, we are on it.", at: at + 1000 } : null,
      author: null,
    };
  });
}

const newestFirst = (a: StoredReview, b: StoredReview) => b.created_at - a.created_at;

async function uncached(kv: Deno.Kv, app: FeedbackApp, from = -Infinity, to = Infinity) {
  return (await listReviews(kv, app.org, app.id))
    .filter((r) => r.created_at >= from && r.created_at < to)
    .sort(newestFirst);
}

/** Deps whose KV counts the listings of reviews (each one reads a whole app). */
function countingLists(deps: Deps) {
  const counter = { lists: 0 };
  const kv = new Proxy(deps.kv, {
    get(target, p) {
      const v = Reflect.get(target, p, target);
      if (p === "list") {
        return (...args: Parameters<Deno.Kv["list"]>) => {
          counter.lists++;
          return target.list(...args);
        };
      }
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { deps: { ...deps, kv } as Deps, counter };
}

async function setup(n: number) {
  const deps = await testDeps();
  const make = (store_id: string) =>
    createApp(deps.kv, deps.clock, "o", { store: "google_play", store_id, touchpoint: null });
  const a = await make("com.example.one"), b = await make("com.example.two");
  await storeReviews(deps.kv, a, "import", reviews("a", n));
  await storeReviews(deps.kv, b, "import", reviews("b", n));
  const bytes = (await listReviews(deps.kv, "o", a.id)).reduce((s, r) => s + reviewBytes(r), 0);
  return { deps, a, b, bytes };
}

Deno.test("review cache: kept bytes never pass the budget while more reviews are asked, answers equal KV's", async () => {
  const { deps, a, b, bytes } = await setup(400);
  const budget = Math.floor(bytes / 3); // an app is three times the budget; both six times
  const cache = new ReviewCache(deps, budget);
  const periods: [number, number][] = [
    [END - 30 * DAY, END + 1],
    [END - 60 * DAY, END - 30 * DAY],
    [END - 7 * DAY, END + 1],
    [END - 14 * DAY, END - 7 * DAY],
    [END - 200 * DAY, END + 1], // more than the budget in one period
    [END - 90 * DAY, END - 60 * DAY],
  ];
  for (let round = 0; round < 2; round++) {
    for (const app of [a, b]) {
      assert.deepEqual(await cache.get("o", app.id), await uncached(deps.kv, app));
      assert.ok(cache.bytes <= budget, `after get: ${cache.bytes} > ${budget}`);
      for (const [from, to] of periods) {
        assert.deepEqual(await cache.between("o", app.id, from, to), await uncached(deps.kv, app, from, to));
        assert.ok(cache.bytes <= budget, `after ${from}..${to}: ${cache.bytes} > ${budget}`);
      }
    }
  }
  assert.ok(cache.bytes > 0, "something is kept");
  deps.kv.close();
});

Deno.test("review cache: an app that fits is kept whole and read once; a write is answered at once", async () => {
  const { deps: base, a, bytes } = await setup(120);
  const { deps, counter } = countingLists(base);
  const cache = new ReviewCache(deps, bytes * 3);
  const all = await cache.get("o", a.id);
  assert.equal(all.length, 120);
  assert.equal(await cache.get("o", a.id), all, "the kept array");
  assert.deepEqual(
    await cache.between("o", a.id, END - 30 * DAY, END + 1),
    await uncached(base.kv, a, END - 30 * DAY, END + 1),
  );
  assert.equal(counter.lists, 1);
  assert.ok(cache.bytes === bytes);

  // A new review (the stamp bumped): answered by the next read, the old copy no longer counted.
  await storeReviews(base.kv, a, "import", [{ ...reviews("new", 1)[0], created_at: END, updated_at: END }]);
  const after = await cache.between("o", a.id, END - DAY, END + 1);
  assert.deepEqual(after, await uncached(base.kv, a, END - DAY, END + 1));
  assert.ok(after.some((r) => r.id === "new0"));
  assert.equal((await cache.get("o", a.id)).length, 121);
  assert.ok(cache.bytes <= bytes * 3 && cache.bytes > bytes, `${cache.bytes}`);
  base.kv.close();
});

Deno.test("review cache: an app too large to keep is answered by period; the previous period is kept with it", async () => {
  const { deps: base, a, bytes } = await setup(400);
  const { deps, counter } = countingLists(base);
  const cache = new ReviewCache(deps, Math.floor(bytes * 0.6)); // the whole app does not fit, 60 days do
  const cur: [number, number] = [END - 14 * DAY, END + 1],
    prev: [number, number] = [END - 28 * DAY, END - 14 * DAY];
  assert.deepEqual(await cache.between("o", a.id, ...cur), await uncached(base.kv, a, ...cur));
  assert.deepEqual(await cache.between("o", a.id, ...prev), await uncached(base.kv, a, ...prev));
  assert.equal(counter.lists, 1, "the period and the one before it from one listing");
  assert.ok(cache.bytes > 0 && cache.bytes <= bytes * 0.6);

  // Every review (not kept: it does not fit), listed each time and equal to KV's.
  assert.deepEqual(await cache.get("o", a.id), await uncached(base.kv, a));
  assert.deepEqual(await cache.get("o", a.id), await uncached(base.kv, a));
  assert.equal(counter.lists, 3);
  assert.ok(cache.bytes <= bytes * 0.6);
  base.kv.close();
});

Deno.test("review cache: reads of one app at once share one listing", async () => {
  const { deps: base, a } = await setup(120);
  const { deps, counter } = countingLists(base);
  const cache = new ReviewCache(deps);
  const answers = await Promise.all([
    cache.get("o", a.id),
    cache.get("o", a.id),
    cache.between("o", a.id, END - 30 * DAY, END + 1),
    cache.get("o", a.id),
  ]);
  assert.equal(counter.lists, 1);
  assert.deepEqual(answers[0], await uncached(base.kv, a));
  assert.deepEqual(answers[2], await uncached(base.kv, a, END - 30 * DAY, END + 1));
  base.kv.close();
});
