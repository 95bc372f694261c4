/**
 * Apps, listings, fetch status and reviews in KV. Reviews are idempotent on (store, review id): storing the
 * same review again writes nothing; an edited review (rating, title, text, reply or version changed)
 * replaces the stored one. Every write of an app's reviews bumps its stamp in the same commit, so caches
 * of other instances see the change on their next read.
 *
 * A review is kept twice, in one commit: by its id (what a write reads, to store it once) and by its first
 * date (keys.feedbackReviewAt, what a period's read lists, lib/feedback/review_cache.ts). The review job
 * marks an app once it has seen every review of it with its date key (keys.feedbackReviewsDated,
 * lib/feedback/review_dates.ts: a new app at its first run, one stored before the date keys once it has
 * written them); until then its reads list the reviews by id, as before.
 */
import { invalid, notFound } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { randomId, sha256Hex } from "../keys/apikeys.ts";
import type { Clock } from "../clock.ts";
import type {
  FeedbackApp,
  FetchStatus,
  IncomingReview,
  ReviewSource,
  Store,
  StoredReview,
  StoreListing,
} from "./types.ts";
import { analyzeLoaded, loadAnalysis } from "./analysis/on_demand.ts";
import { authorMasker, otherAuthorsMasker } from "./author_mask.ts";
import { maskText } from "../answers/privacy.ts";

/** KV values stay under 64 KiB: texts are cut here (store reviews are far shorter). */
export const MAX_TEXT_CHARS = 12_000;
/**
 * Reviews read and written in one commit: each is checked, and a commit takes at most 100 checks. (One stamp
 * bump a commit: 10 reviews a commit bumped it 5,000 times in a 50,000-review import, and every read of the
 * app in another instance listed its reviews again each time.)
 */
const COMMIT_REVIEWS = 90;
/** A commit's values at most (KV takes 800 KB), and its keys' bytes (KV takes 80 KB), with room to spare. */
const COMMIT_BYTES = 700_000;
const COMMIT_KEY_BYTES = 60_000;
/** KV reads at most 10 keys at once (getMany): a batch's keys are read in several at once. */
const GET_MANY = 10;

export function validStoreId(store: Store, id: string): boolean {
  return store === "app_store" ? /^\d{5,12}$/.test(id) : /^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/.test(id);
}

export interface NewApp {
  store: Store;
  store_id: string;
  touchpoint: string | null;
  name?: string;
  countries?: string[];
  /** A made-up app of the demo (lib/feedback/demo_reviews.ts): never fetched. */
  demo?: boolean;
}

export async function createApp(kv: Deno.Kv, clock: Clock, org: string, body: NewApp): Promise<FeedbackApp> {
  if (!validStoreId(body.store, body.store_id)) {
    throw invalid(
      body.store === "app_store"
        ? "store_id: an App Store id is the app's numeric id, e.g. 284882215"
        : "store_id: a Google Play id is the package name, e.g. com.example.app",
    );
  }
  const app: FeedbackApp = {
    id: randomId("app_"),
    org,
    store: body.store,
    store_id: body.store_id,
    touchpoint: body.touchpoint,
    followed: body.touchpoint === null,
    name: body.name ?? body.store_id,
    countries: body.countries?.length ? body.countries.map((c) => c.toLowerCase()) : ["us"],
    created_at: new Date(clock.now()).toISOString(),
    ...(body.demo ? { demo: true as const } : {}),
  };
  const index = keys.feedbackAppByStoreId(org, app.store, app.store_id);
  const res = await kv.atomic().check({ key: index, versionstamp: null })
    .set(index, app.id)
    .set(keys.feedbackApp(org, app.id), app)
    .commit();
  if (!res.ok) {
    throw invalid(`store_id: ${app.store} app ${app.store_id} is already added to this organization`);
  }
  return app;
}

export async function listApps(kv: Deno.Kv, org: string): Promise<FeedbackApp[]> {
  const out: FeedbackApp[] = [];
  for await (const e of kv.list<FeedbackApp>({ prefix: keys.feedbackApps(org) })) out.push(e.value);
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** Every app of every organization, one organization at a time. */
export async function* allApps(kv: Deno.Kv): AsyncGenerator<FeedbackApp> {
  const orgs = new Set<string>();
  for await (const e of kv.list<FeedbackApp>({ prefix: keys.feedbackAppsAll() })) orgs.add(e.value.org);
  for (const org of orgs) yield* await listApps(kv, org);
}

export async function getApp(kv: Deno.Kv, org: string, id: string): Promise<FeedbackApp> {
  const app = (await kv.get<FeedbackApp>(keys.feedbackApp(org, id))).value;
  if (!app) throw notFound(`no app ${id} in organization ${org}`);
  return app;
}

/** Removes an app with its listing, credentials, status and fetch walk; its reviews are deleted in batches. */
export async function deleteApp(kv: Deno.Kv, org: string, id: string): Promise<void> {
  const app = await getApp(kv, org, id);
  await kv.atomic()
    .delete(keys.feedbackApp(org, id))
    .delete(keys.feedbackAppByStoreId(org, app.store, app.store_id))
    .delete(keys.feedbackListing(org, id))
    .delete(keys.feedbackCredential(org, id))
    .delete(keys.feedbackStatus(org, id))
    .delete(keys.feedbackReanalysis(org, id))
    .delete(keys.feedbackReviewsDated(org, id))
    .delete(keys.feedbackReviewDating(org, id))
    .sum(keys.feedbackStamp(org, id), 1n)
    .commit();
  for await (const e of kv.list({ prefix: keys.feedbackWalks(org, id) })) await kv.delete(e.key);
  let op = kv.atomic();
  let n = 0;
  for (const prefix of [keys.feedbackReviews(org, id), keys.feedbackReviewsAt(org, id)]) {
    for await (const e of kv.list({ prefix })) {
      op.delete(e.key);
      if (++n % 500 === 0) {
        await op.commit();
        op = kv.atomic();
      }
    }
  }
  await op.commit();
}

export async function getListing(kv: Deno.Kv, org: string, app: string): Promise<StoreListing | null> {
  return (await kv.get<StoreListing>(keys.feedbackListing(org, app))).value;
}

export async function setListing(kv: Deno.Kv, org: string, app: string, listing: StoreListing) {
  await kv.set(keys.feedbackListing(org, app), listing);
}

export const EMPTY_STATUS: FetchStatus = {
  last_attempt_at: null,
  last_success_at: null,
  last_error_at: null,
  last_error: null,
  failures: 0,
  next_attempt_at: null,
  last_stored: 0,
  listing_error: null,
};

export async function getStatus(kv: Deno.Kv, org: string, app: string): Promise<FetchStatus> {
  return (await kv.get<FetchStatus>(keys.feedbackStatus(org, app))).value ?? { ...EMPTY_STATUS };
}

export async function setStatus(kv: Deno.Kv, org: string, app: string, status: FetchStatus) {
  await kv.set(keys.feedbackStatus(org, app), status);
}

export async function stampOf(kv: Deno.Kv, org: string, app: string): Promise<bigint> {
  const v = (await kv.get<Deno.KvU64>(keys.feedbackStamp(org, app))).value;
  return v ? v.value : 0n;
}

/**
 * What an edit can change, as stored (texts cut to their limits). The first element names the author rule
 * of lib/feedback/author_mask.ts (2: names without their accents and as handles, emails and phone numbers
 * masked before the name; 3: the other authors' names of the reviews stored with it): a review stored before it (its hash made without it) is stored again, masked, the
 * next time a fetch or import gives it.
 */
function contentHash(r: IncomingReview): string {
  const title = r.title ? r.title.slice(0, 500) : null;
  const reply = r.reply ? r.reply.text.slice(0, MAX_TEXT_CHARS) : null;
  return sha256Hex(
    JSON.stringify(["author-masked-3", r.rating, title, r.text.slice(0, MAX_TEXT_CHARS), reply, r.version]),
  );
}

/**
 * `others`: the names of the other reviews' authors stored with this one (otherAuthorsMasker), masked too: a
 * text that names another reviewer would quote them.
 */
export function toStored(
  app: FeedbackApp,
  source: ReviewSource,
  r: IncomingReview,
  others: (text: string) => string = (t) => t,
): StoredReview {
  // The author's name out of everything that may be quoted (rule 4); afterwards only its hash is kept. Emails
  // and phone numbers first, so an address holding the name is masked whole, not cut around the name.
  const author = authorMasker(r.author);
  const mask = (t: string) => others(author(maskText(t)));
  const text = mask(r.text).slice(0, MAX_TEXT_CHARS);
  const title = r.title ? mask(r.title).slice(0, 500) : null;
  return {
    v: 1,
    app: app.id,
    store: app.store,
    id: r.id,
    source,
    rating: r.rating,
    title,
    text,
    language: r.language,
    country: r.country,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at ?? r.created_at,
    reply: r.reply ? { text: mask(r.reply.text).slice(0, MAX_TEXT_CHARS), at: r.reply.at } : null,
    author_hash: r.author ? sha256Hex(`review-author:${r.author}`) : null,
    content_hash: contentHash(r),
    analysis: analyzeLoaded({ rating: r.rating, title, text, language: r.language }),
  };
}

export interface StoreResult {
  stored: number; // new reviews
  updated: number; // edits that replaced a stored review
  unchanged: number; // already stored as they are
}

/** Many keys read at once, GET_MANY a request, the requests in parallel. */
async function getAll<T>(kv: Deno.Kv, ks: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const parts: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < ks.length; i += GET_MANY) parts.push(kv.getMany<T[]>(ks.slice(i, i + GET_MANY)));
  return (await Promise.all(parts)).flat();
}

const keyBytes = (k: Deno.KvKey) => k.reduce<number>((n, p) => n + String(p).length * 3 + 10, 0);

/**
 * Stores reviews of one app. A review already stored with the same content is left alone (a re-fetch or a
 * re-import writes nothing); a changed one replaces it, and its date key moves with it. Each commit checks
 * what it read, so two fetches of one app at once cannot both write, and a retry never stores a review twice:
 * a commit stores all of its reviews or none, and what it stored reads as unchanged next time.
 */
export async function storeReviews(
  kv: Deno.Kv,
  app: FeedbackApp,
  source: ReviewSource,
  incoming: IncomingReview[],
): Promise<StoreResult> {
  const result: StoreResult = { stored: 0, updated: 0, unchanged: 0 };
  if (incoming.length) await loadAnalysis(); // toStored analyses each review
  const seen = new Map<string, IncomingReview>();
  for (const r of incoming) seen.set(r.id, r); // the last copy of an id in one batch wins
  const list = [...seen.values()];
  // every author of this batch, so a review naming another one does not quote them (names kept in memory only)
  const others = otherAuthorsMasker(list.map((r) => r.author));
  const stamp = keys.feedbackStamp(app.org, app.id);
  // masked and analysed once, whatever the attempts (a review a commit could not take starts the next one)
  const made = new Map<string, StoredReview>();
  for (let i = 0; i < list.length;) {
    const chunk = list.slice(i, i + COMMIT_REVIEWS);
    const ks = chunk.map((r) => keys.feedbackReview(app.org, app.id, r.id));
    let taken = 0;
    for (let attempt = 0; attempt < 5 && !taken; attempt++) {
      const current = await getAll<StoredReview>(kv, ks);
      const op = kv.atomic();
      const counts = { stored: 0, updated: 0, unchanged: 0 };
      let n = 0, bytes = 0, keyBytesUsed = keyBytes(stamp);
      for (; n < chunk.length; n++) {
        const r = chunk[n], old = current[n].value;
        if (old && old.content_hash === contentHash(r)) {
          op.check(current[n]);
          keyBytesUsed += keyBytes(ks[n]);
          counts.unchanged++;
          continue;
        }
        let next = made.get(r.id);
        if (!next) made.set(r.id, next = toStored(app, source, r, others));
        // An edit keeps the review's first date: stores give the edit's date as its only date.
        if (old && old.created_at < next.created_at) next = { ...next, created_at: old.created_at };
        const at = keys.feedbackReviewAt(app.org, app.id, next.created_at, next.id);
        const moved = old && old.created_at !== next.created_at
          ? keys.feedbackReviewAt(app.org, app.id, old.created_at, old.id)
          : null;
        // twice the value (by id, by date), at most two bytes a character as stored
        const size = 4 * JSON.stringify(next).length;
        const kb = 2 * keyBytes(ks[n]) + keyBytes(at) + (moved ? keyBytes(moved) : 0);
        if (n > 0 && (bytes + size > COMMIT_BYTES || keyBytesUsed + kb > COMMIT_KEY_BYTES)) break; // the next commit's
        bytes += size;
        keyBytesUsed += kb;
        op.check(current[n]).set(ks[n], next).set(at, next);
        if (moved) op.delete(moved);
        old ? counts.updated++ : counts.stored++;
      }
      const writes = counts.stored + counts.updated > 0;
      if (writes) op.sum(stamp, 1n);
      // (nothing to write: every review read as stored, no commit needed)
      if (!writes || (await op.commit()).ok) {
        result.stored += counts.stored;
        result.updated += counts.updated;
        result.unchanged += counts.unchanged;
        taken = n;
        for (const r of chunk.slice(0, n)) made.delete(r.id);
      } else if (attempt === 4) throw new Error("reviews: five conflicting writes in a row; try again");
    }
    i += taken;
  }
  return result;
}

export async function listReviews(kv: Deno.Kv, org: string, app: string): Promise<StoredReview[]> {
  const out: StoredReview[] = [];
  for await (
    const e of kv.list<StoredReview>({ prefix: keys.feedbackReviews(org, app) }, { batchSize: 1000 })
  ) {
    out.push(e.value);
  }
  return out;
}
