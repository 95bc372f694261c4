/**
 * Fetching reviews and listings on a schedule (lib/jobs registers the crons) through deps.fetch. Which
 * source an app uses: own App Store apps with an API key, App Store Connect; own Google Play apps with a
 * service account, the Developer API; App Store apps otherwise, the public feed; Google Play apps otherwise,
 * import only. Newest first, stopping at the first page with nothing new; at most MAX_PAGES pages a run
 * per lane (a source; the feed has one per country), so a run stays short. What a run could not reach (a
 * first connection's history, new reviews past MAX_PAGES after a backoff, a page that failed) is a
 * backlog: its cursor is kept in KV (walk.ts) and the next runs read on from it with the pages the newest
 * ones leave, until it meets stored reviews (or, for a history never read to its end, the last page).
 * A failure is recorded on the app (shown in account_overview) and the next attempt waits 15 min, 30 min,
 * 1 h, … up to a day; a store's Retry-After is honoured. A KV lease keeps two instances off one app.
 */
import type { Deps } from "../deps.ts";
import { keys } from "../store/keys.ts";
import type { FeedbackApp, FetchStatus, ReviewSource } from "./types.ts";
import { allApps, getStatus, setListing, setStatus, storeReviews } from "./store.ts";
import { loadCredential } from "./credentials.ts";
import { ASC_BASE, ascReviewsPage, ascToken } from "./sources/app_store_connect.ts";
import { PLAY_BASE, playAccessToken, playReviewsPage } from "./sources/google_play.ts";
import { feedPage, ITUNES_BASE } from "./sources/app_store_feed.ts";
import { fetchListing, PLAY_WEB_BASE } from "./sources/listing.ts";
import { SourceError } from "./sources/http.ts";
import type { Page } from "./sources/page.ts";
import { type Backlog, getWalk, NEW_WALK, saveWalk, type Walk } from "./walk.ts";
import { DEMO_APPS } from "./demo_apps.ts";

export const REVIEWS_CRON = "7,37 * * * *"; // every 30 minutes
export const LISTINGS_CRON = "23 4 * * *"; // daily
export const MAX_PAGES = 10;
const BACKOFF_BASE_MS = 15 * 60_000;
const BACKOFF_MAX_MS = 24 * 3_600_000;
const LEASE_MS = 10 * 60_000;

export interface Plan {
  source: ReviewSource | null;
  /** Why the app has no fetch source, when it has none. */
  note: string | null;
}

/**
 * The demo's made-up apps: marked since the mark was added, and before it by the demo's own store ids and
 * names (a dev store seeded earlier), so their reviews never send a request to a store.
 */
export function isDemoApp(app: FeedbackApp): boolean {
  return app.demo === true || DEMO_APPS.some((d) =>
    d.store === app.store && d.store_id === app.store_id &&
    d.name === app.name
  );
}

export async function sourceOf(deps: Deps, app: FeedbackApp): Promise<Plan> {
  if (isDemoApp(app)) {
    return {
      source: null,
      note: "a demo app: its reviews are generated for the demo, never fetched from a store",
    };
  }
  const cred = (await deps.kv.get<{ kind: string }>(keys.feedbackCredential(app.org, app.id))).value;
  if (!app.followed && cred?.kind === "app_store_connect" && app.store === "app_store") {
    return { source: "app_store_connect", note: null };
  }
  if (!app.followed && cred?.kind === "google_play" && app.store === "google_play") {
    return { source: "google_play_api", note: null };
  }
  if (app.store === "app_store") return { source: "app_store_feed", note: null };
  return { source: null, note: "Google Play reviews of this app come by import (no service account stored)" };
}

type Pager = (cursor: string | null) => Promise<Page>;
/** One walk through a store's newest-first pages: a source, or one country of the public feed. */
interface Lane {
  name: string;
  page: Pager;
}

async function lanes(deps: Deps, app: FeedbackApp, source: ReviewSource): Promise<Lane[]> {
  const now = deps.clock.now();
  if (source === "app_store_connect" || source === "google_play_api") {
    const cred = await loadCredential(deps.kv, deps.config.credentialsKey, app.org, app.id);
    if (!cred) throw new SourceError("no credentials stored");
    if (cred.kind === "app_store_connect") {
      const token = await ascToken(cred, now);
      return [{ name: source, page: (c) => ascReviewsPage(deps.fetch, ASC_BASE, app.store_id, token, c) }];
    }
    const token = await playAccessToken(deps.fetch, cred, now);
    return [{ name: source, page: (c) => playReviewsPage(deps.fetch, PLAY_BASE, app.store_id, token, c) }];
  }
  return app.countries.map((country) => ({
    name: `${source}:${country}`,
    page: (c: string | null) => feedPage(deps.fetch, ITUNES_BASE, app.store_id, country, c),
  }));
}

export interface FetchOutcome {
  source: ReviewSource | null;
  stored: number;
  updated: number;
  pages: number;
  error: string | null;
}

/** A store's answer that says this cursor is no good (not a passing failure of the store). */
const refusesCursor = (e: unknown) => e instanceof SourceError && [400, 404, 410].includes(e.status ?? 0);

/**
 * One lane of a run: the newest pages until one with nothing new, then the backlog with the pages left.
 * The walk is saved whatever happens (a failure keeps the position it reached) before the error goes on.
 */
async function walkLane(deps: Deps, app: FeedbackApp, source: ReviewSource, lane: Lane, out: FetchOutcome) {
  const read = await getWalk(deps.kv, app.org, app.id, lane.name);
  const walk: Walk = structuredClone(read.value ?? NEW_WALK);
  let budget = MAX_PAGES;
  const take = async (cursor: string | null) => {
    const p = await lane.page(cursor);
    budget--;
    out.pages++;
    const r = await storeReviews(deps.kv, app, source, p.reviews);
    out.stored += r.stored;
    out.updated += r.updated;
    return { next: p.next, nothingNew: p.reviews.length === 0 || r.stored + r.updated === 0 };
  };
  // A backlog starting at `cursor`, below new reviews this run could not finish: with one already open,
  // the new one reads to the end (the old one lies somewhere below stored pages).
  const gapAt = (cursor: string): Backlog => ({
    cursor,
    to_end: walk.backlog !== null || !walk.walked,
    refused: 0,
  });
  let cursor: string | null = null;
  try {
    for (;;) {
      const p = await take(cursor);
      if (!p.next) { // read from the top to the last page: nothing older is missing
        walk.walked = true;
        walk.backlog = null;
        budget = 0;
        break;
      }
      if (p.nothingNew) {
        // A history never read to its end (a connection made before backlogs were kept) is read now.
        if (!walk.walked && !walk.backlog) walk.backlog = { cursor: p.next, to_end: true, refused: 0 };
        break;
      }
      cursor = p.next;
      if (budget === 0) {
        walk.backlog = gapAt(cursor);
        break;
      }
    }
  } catch (e) {
    // New reviews were stored above this page: what lies below it is a backlog now.
    if (cursor !== null) walk.backlog = gapAt(cursor);
    await saveWalk(deps.kv, read, walk);
    throw e;
  }
  try {
    while (walk.backlog && budget > 0) {
      const b: Backlog = walk.backlog;
      const p = await take(b.cursor);
      b.refused = 0;
      if (!p.next) {
        walk.walked = true;
        walk.backlog = null;
      } else if (p.nothingNew && !b.to_end) {
        walk.backlog = null; // met the reviews stored before the gap
      } else {
        b.cursor = p.next;
      }
    }
  } catch (e) {
    const b = walk.backlog!;
    // A cursor the store keeps refusing (expired, say) is given up for a walk from the top to the end.
    if (refusesCursor(e) && ++b.refused >= 3) walk.backlog = { cursor: null, to_end: true, refused: 0 };
    await saveWalk(deps.kv, read, walk);
    throw e;
  }
  await saveWalk(deps.kv, read, walk);
}

/** Fetches one app's new reviews now (whatever its schedule) and records the outcome on the app. */
export async function fetchAppReviews(deps: Deps, app: FeedbackApp): Promise<FetchOutcome> {
  const plan = await sourceOf(deps, app);
  const status = await getStatus(deps.kv, app.org, app.id);
  const now = deps.clock.now();
  const outcome: FetchOutcome = { source: plan.source, stored: 0, updated: 0, pages: 0, error: null };
  if (!plan.source) return outcome;
  status.last_attempt_at = now;
  try {
    for (const lane of await lanes(deps, app, plan.source)) {
      await walkLane(deps, app, plan.source, lane, outcome);
    }
    Object.assign(
      status,
      {
        last_success_at: now,
        failures: 0,
        next_attempt_at: null,
        last_stored: outcome.stored + outcome.updated,
      } satisfies Partial<FetchStatus>,
    );
  } catch (e) {
    const err = e instanceof SourceError ? e : new SourceError(e instanceof Error ? e.message : String(e));
    outcome.error = err.message;
    status.failures++;
    const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (status.failures - 1));
    status.next_attempt_at = now + Math.max(wait, (err.retryAfterS ?? 0) * 1000);
    status.last_error_at = now;
    status.last_error = err.message;
    deps.log.warn("review fetch failed", { org: app.org, app: app.id, error: err.message });
  }
  await setStatus(deps.kv, app.org, app.id, status);
  return outcome;
}

/** Refreshes one app's store listing; a failure keeps the last listing and is recorded on the status. */
export async function refreshListing(deps: Deps, app: FeedbackApp): Promise<string | null> {
  if (isDemoApp(app)) return null; // the demo's listing is written with its reviews
  let error: string | null = null;
  try {
    const listing = await fetchListing(
      deps.fetch,
      { itunes: ITUNES_BASE, playWeb: PLAY_WEB_BASE },
      app,
      deps.clock.now(),
    );
    await setListing(deps.kv, app.org, app.id, listing);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const status = await getStatus(deps.kv, app.org, app.id);
  status.listing_error = error;
  await setStatus(deps.kv, app.org, app.id, status);
  return error;
}

async function takeLease(deps: Deps, app: FeedbackApp, what: string): Promise<boolean> {
  const key = [...keys.feedbackLease(app.org, app.id), what];
  const cur = await deps.kv.get(key);
  if (cur.value !== null) return false;
  return (await deps.kv.atomic().check(cur).set(key, deps.clock.now(), { expireIn: LEASE_MS }).commit()).ok;
}

/** The cron body: every app whose backoff has passed, one at a time. */
export async function fetchDueReviews(deps: Deps): Promise<number> {
  let n = 0;
  for await (const app of allApps(deps.kv)) {
    try {
      if (isDemoApp(app)) continue;
      const status = await getStatus(deps.kv, app.org, app.id);
      if (status.next_attempt_at !== null && status.next_attempt_at > deps.clock.now()) continue;
      if (!(await takeLease(deps, app, "reviews"))) continue;
      await fetchAppReviews(deps, app);
      n++;
    } catch (err) {
      // one app failing (its records, its credentials) never stops the others' fetch
      deps.log.error("review fetch of an app failed", { org: app.org, app: app.id, error: String(err) });
    }
  }
  return n;
}

export async function refreshAllListings(deps: Deps): Promise<number> {
  let n = 0;
  for await (const app of allApps(deps.kv)) {
    try {
      if (isDemoApp(app)) continue;
      if (!(await takeLease(deps, app, "listing"))) continue;
      await refreshListing(deps, app);
      n++;
    } catch (err) {
      deps.log.error("listing refresh of an app failed", { org: app.org, app: app.id, error: String(err) });
    }
  }
  return n;
}
