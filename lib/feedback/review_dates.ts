/**
 * Date keys for reviews stored before them (lib/feedback/store.ts writes each review by id and by date in one
 * commit). An app is read by id, listed whole, until the review job has seen each of its reviews with its
 * date key, writing those it lacks: a bounded number a run, resuming where the last run stopped (a KV list
 * cursor kept per app). Then the app is marked (keys.feedbackReviewsDated) and a period's read lists only its
 * months. A new app is marked at the job's first run (nothing to write); the mark is never assumed unseen.
 * A date key is written only beside the review as it was read (its versionstamp checked): a review edited
 * meanwhile was given its date key by that edit.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { FeedbackApp, StoredReview } from "./types.ts";

/** Reviews one run lists at most over all apps (most of an app's may have their date key already). */
export const DATES_BUDGET = 20_000;
/** Reviews per commit: each is checked (a commit takes 100 checks), values under 800 KB. */
const COMMIT_REVIEWS = 50;

/** Where an app's pass stands: the list cursor to resume from. */
interface Pass {
  cursor: string | null;
}
const passKey = (app: FeedbackApp) => keys.feedbackReviewDating(app.org, app.id);

/** True when every stored review of the app has its date key. */
export async function isDated(kv: Deno.Kv, app: FeedbackApp): Promise<boolean> {
  return (await kv.get(keys.feedbackReviewsDated(app.org, app.id))).value === true;
}

/**
 * Continues one app's pass over at most `budget` reviews; returns how many it listed (0 when the app is
 * marked already). Marks the app when the listing reaches its end.
 */
export async function dateApp(deps: Deps, app: FeedbackApp, budget: number): Promise<number> {
  if (await isDated(deps.kv, app)) return 0;
  const saved = (await deps.kv.get<Pass>(passKey(app))).value;
  const it = deps.kv.list<StoredReview>({ prefix: keys.feedbackReviews(app.org, app.id) }, {
    cursor: saved?.cursor ?? undefined,
    batchSize: 500,
  });
  let scanned = 0, complete = true;
  let pending: Deno.KvEntry<StoredReview>[] = [];
  for await (const e of it) {
    scanned++;
    pending.push(e);
    if (pending.length >= COMMIT_REVIEWS) {
      await write(deps, app, pending);
      pending = [];
    }
    if (scanned >= budget) {
      complete = false;
      break;
    }
  }
  if (pending.length) await write(deps, app, pending);
  if (complete) {
    await deps.kv.atomic().set(keys.feedbackReviewsDated(app.org, app.id), true).delete(passKey(app))
      .commit();
  } else await deps.kv.set(passKey(app), { cursor: it.cursor } satisfies Pass);
  return scanned;
}

/** The date keys these reviews lack, each written only if its review is as it was read. */
async function write(deps: Deps, app: FeedbackApp, entries: Deno.KvEntry<StoredReview>[]) {
  const at = entries.map((e) => keys.feedbackReviewAt(app.org, app.id, e.value.created_at, e.value.id));
  const have: Deno.KvEntryMaybe<unknown>[] = [];
  for (let i = 0; i < at.length; i += 10) have.push(...await deps.kv.getMany(at.slice(i, i + 10)));
  const missing = entries.map((e, i) => ({ e, at: at[i] })).filter((_, i) => have[i].versionstamp === null);
  if (!missing.length) return;
  const op = deps.kv.atomic();
  for (const m of missing) op.check(m.e).set(m.at, m.e.value);
  if ((await op.commit()).ok) return;
  // One was edited meanwhile (its edit wrote its date key): the others one by one.
  for (const m of missing) await deps.kv.atomic().check(m.e).set(m.at, m.e.value).commit();
}

/** The job's part: every app not yet marked continued, DATES_BUDGET reviews listed in all. */
export async function dateReviews(
  deps: Deps,
  apps: AsyncIterable<FeedbackApp>,
  budget = DATES_BUDGET,
): Promise<number> {
  let listed = 0;
  for await (const app of apps) {
    if (listed >= budget) break;
    try {
      listed += await dateApp(deps, app, budget - listed);
    } catch (err) {
      deps.log.error("date keys of an app's reviews failed", {
        org: app.org,
        app: app.id,
        error: String(err),
      });
    }
  }
  return listed;
}
