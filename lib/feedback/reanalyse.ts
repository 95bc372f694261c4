/**
 * Stored reviews carry the version of the analysis they were stored with (`analysis.v`). When the analysis
 * changes (ANALYSIS_VERSION), older ones are brought up to date in two bounded ways, both fit for many
 * short-lived instances without file writes or queues:
 * - on read: an instance loading an app's reviews re-analyses, in memory, at most READ_BUDGET of the
 *   stale ones (an app of a few hundred reviews is answered with the new analysis at once);
 * - in the review job: at most JOB_BUDGET stale reviews a run are re-analysed and written back, resuming
 *   where the last run stopped (a KV list cursor kept per app), so a large app is caught up within hours
 *   and reads no longer pay for it. Writes check what they read: an edit stored meanwhile wins.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { FeedbackApp, StoredReview } from "./types.ts";
import { allApps } from "./store.ts";
import { dateReviews } from "./review_dates.ts";
import { ANALYSIS_VERSION } from "./analysis/version.ts";
import { analyzeLoaded, loadAnalysis } from "./analysis/on_demand.ts";

/** Stale reviews one cache load re-analyses in memory (~0.1-0.3 s: language detection costs most). */
export const READ_BUDGET = 300;
/** Stale reviews one run of the review job re-analyses and stores, over all apps. */
export const JOB_BUDGET = 5_000;
/** Reviews one run lists at most (most may be current already): the scan is bounded too. */
export const SCAN_BUDGET = 20_000;
/** Reviews per commit: a review is at most ~25 KB, a commit takes 800 KB. */
const COMMIT_REVIEWS = 10;

export const isStale = (r: StoredReview) => r.analysis.v !== ANALYSIS_VERSION;

/** The review with the current analysis of what it says. */
export function reanalysed(r: StoredReview): StoredReview {
  return {
    ...r,
    analysis: analyzeLoaded({ rating: r.rating, title: r.title, text: r.text, language: r.language }),
  };
}

/** Reviews as loaded, with up to `budget` stale ones re-analysed (new objects; the input is not changed). */
export function refreshStale(reviews: StoredReview[], budget = READ_BUDGET): StoredReview[] {
  let left = budget;
  return reviews.map((r) => (left > 0 && isStale(r) ? (left--, reanalysed(r)) : r));
}

/** Where an app's pass stands: the version it brings reviews to, and the list cursor to resume from. */
interface Pass {
  v: number;
  cursor: string | null;
  complete: boolean;
}

export interface ReanalyseResult {
  apps: number;
  reviews: number;
}

/**
 * Continues one app's pass, re-analysing at most `budget` stale reviews. Returns how many it rewrote; the
 * pass is complete (and later runs read one key) when the listing reaches the end.
 */
export async function reanalyseApp(
  deps: Deps,
  app: FeedbackApp,
  budget: number,
  scanBudget = SCAN_BUDGET,
): Promise<number> {
  const passKey = keys.feedbackReanalysis(app.org, app.id);
  const saved = (await deps.kv.get<Pass>(passKey)).value;
  if (saved?.v === ANALYSIS_VERSION && saved.complete) return 0;
  await loadAnalysis(); // write() re-analyses
  const cursor = saved?.v === ANALYSIS_VERSION ? saved.cursor ?? undefined : undefined;
  const it = deps.kv.list<StoredReview>({ prefix: keys.feedbackReviews(app.org, app.id) }, {
    cursor,
    batchSize: 500,
  });
  let rewritten = 0, scanned = 0, complete = true, at = cursor ?? null;
  let pending: Deno.KvEntry<StoredReview>[] = [];
  for await (const e of it) {
    scanned++;
    if (isStale(e.value)) pending.push(e);
    if (pending.length >= COMMIT_REVIEWS) {
      rewritten += await write(deps, app, pending);
      pending = [];
    }
    at = it.cursor;
    if (rewritten + pending.length >= budget || scanned >= scanBudget) {
      complete = false;
      break;
    }
  }
  if (pending.length) rewritten += await write(deps, app, pending);
  await deps.kv.set(passKey, { v: ANALYSIS_VERSION, cursor: complete ? null : at, complete } satisfies Pass);
  return rewritten;
}

/**
 * Stores the new analysis of these entries, by id and by date (store.ts keeps both), each only if unchanged
 * since it was read; bumps the stamp.
 */
async function write(deps: Deps, app: FeedbackApp, entries: Deno.KvEntry<StoredReview>[]): Promise<number> {
  const set = (op: Deno.AtomicOperation, e: Deno.KvEntry<StoredReview>) => {
    const next = reanalysed(e.value);
    return op.check(e).set(e.key, next).set(
      keys.feedbackReviewAt(app.org, app.id, next.created_at, next.id),
      next,
    );
  };
  const op = deps.kv.atomic();
  for (const e of entries) set(op, e);
  op.sum(keys.feedbackStamp(app.org, app.id), 1n);
  if ((await op.commit()).ok) return entries.length;
  // One of them was edited meanwhile (and stored with the current analysis): the others one by one.
  let n = 0;
  for (const e of entries) {
    const one = await set(deps.kv.atomic(), e).sum(keys.feedbackStamp(app.org, app.id), 1n).commit();
    if (one.ok) n++;
  }
  return n;
}

/**
 * The job's part: every app's pass continued, JOB_BUDGET reviews in all; one app failing stops no other. Then
 * the date keys of reviews stored before them, a bounded number a run (review_dates.ts).
 */
export async function reanalyseStale(deps: Deps, budget = JOB_BUDGET): Promise<ReanalyseResult> {
  const out: ReanalyseResult = { apps: 0, reviews: 0 };
  for await (const app of allApps(deps.kv)) {
    if (out.reviews >= budget) break;
    try {
      const n = await reanalyseApp(deps, app, budget - out.reviews);
      if (n) out.apps++;
      out.reviews += n;
    } catch (err) {
      deps.log.error("re-analysis of an app's reviews failed", {
        org: app.org,
        app: app.id,
        error: String(err),
      });
    }
  }
  await dateReviews(deps, allApps(deps.kv));
  return out;
}
