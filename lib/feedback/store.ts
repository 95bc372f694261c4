/**
 * Apps, listings, fetch status and reviews in KV. Reviews are idempotent on (store, review id): storing the
 * same review again writes nothing; an edited review (rating, title, text, reply or version changed)
 * replaces the stored one. Every write of an app's reviews bumps its stamp in the same commit, so caches
 * of other instances see the change on their next read.
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
import { authorMasker } from "./author_mask.ts";
import { maskText } from "../answers/privacy.ts";

/** KV values stay under 64 KiB: texts are cut here (store reviews are far shorter). */
export const MAX_TEXT_CHARS = 12_000;
/** KV reads at most 10 keys at once (getMany), so a commit covers 10 reviews. */
const COMMIT_REVIEWS = 10;

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
    .sum(keys.feedbackStamp(org, id), 1n)
    .commit();
  for await (const e of kv.list({ prefix: keys.feedbackWalks(org, id) })) await kv.delete(e.key);
  let op = kv.atomic();
  let n = 0;
  for await (const e of kv.list({ prefix: keys.feedbackReviews(org, id) })) {
    op.delete(e.key);
    if (++n % 500 === 0) {
      await op.commit();
      op = kv.atomic();
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
 * masked before the name): a review stored before it (its hash made without it) is stored again, masked, the
 * next time a fetch or import gives it.
 */
function contentHash(r: IncomingReview): string {
  const title = r.title ? r.title.slice(0, 500) : null;
  const reply = r.reply ? r.reply.text.slice(0, MAX_TEXT_CHARS) : null;
  return sha256Hex(
    JSON.stringify(["author-masked-2", r.rating, title, r.text.slice(0, MAX_TEXT_CHARS), reply, r.version]),
  );
}

export function toStored(app: FeedbackApp, source: ReviewSource, r: IncomingReview): StoredReview {
  // The author's name out of everything that may be quoted (rule 4); afterwards only its hash is kept. Emails
  // and phone numbers first, so an address holding the name is masked whole, not cut around the name.
  const author = authorMasker(r.author);
  const mask = (t: string) => author(maskText(t));
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

/**
 * Stores reviews of one app. A review already stored with the same content is left alone (a re-fetch or a
 * re-import writes nothing); a changed one replaces it. Each commit checks what it read, so two fetches
 * of one app at once cannot both write, and a retry never stores a review twice.
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
  for (let i = 0; i < list.length; i += COMMIT_REVIEWS) {
    const chunk = list.slice(i, i + COMMIT_REVIEWS);
    for (let attempt = 0; attempt < 5; attempt++) {
      const ks = chunk.map((r) => keys.feedbackReview(app.org, app.id, r.id));
      const current = await kv.getMany<StoredReview[]>(ks);
      const op = kv.atomic();
      const counts = { stored: 0, updated: 0, unchanged: 0 };
      chunk.forEach((r, k) => {
        op.check(current[k]);
        const old = current[k].value;
        if (old && old.content_hash === contentHash(r)) {
          counts.unchanged++;
          return;
        }
        const next = toStored(app, source, r);
        // An edit keeps the review's first date: stores give the edit's date as its only date.
        if (old) next.created_at = Math.min(old.created_at, next.created_at);
        op.set(ks[k], next);
        old ? counts.updated++ : counts.stored++;
      });
      if (counts.stored + counts.updated > 0) op.sum(keys.feedbackStamp(app.org, app.id), 1n);
      if ((await op.commit()).ok) {
        result.stored += counts.stored;
        result.updated += counts.updated;
        result.unchanged += counts.unchanged;
        break;
      }
      if (attempt === 4) throw new Error("reviews: five conflicting writes in a row; try again");
    }
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
