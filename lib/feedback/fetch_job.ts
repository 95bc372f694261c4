/**
 * Fetching reviews and listings on a schedule (lib/jobs registers the crons) through deps.fetch. Which
 * source an app uses: own App Store apps with an API key, App Store Connect; own Google Play apps with a
 * service account, the Developer API; App Store apps otherwise, the public feed; Google Play apps otherwise,
 * import only. Newest first, at most MAX_PAGES pages a run, stopping at the first page with nothing new.
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

async function pagers(deps: Deps, app: FeedbackApp, source: ReviewSource): Promise<Pager[]> {
  const now = deps.clock.now();
  if (source === "app_store_connect" || source === "google_play_api") {
    const cred = await loadCredential(deps.kv, deps.config.credentialsKey, app.org, app.id);
    if (!cred) throw new SourceError("no credentials stored");
    if (cred.kind === "app_store_connect") {
      const token = await ascToken(cred, now);
      return [(c) => ascReviewsPage(deps.fetch, ASC_BASE, app.store_id, token, c)];
    }
    const token = await playAccessToken(deps.fetch, cred, now);
    return [(c) => playReviewsPage(deps.fetch, PLAY_BASE, app.store_id, token, c)];
  }
  return app.countries.map((country) => (c: string | null) =>
    feedPage(deps.fetch, ITUNES_BASE, app.store_id, country, c)
  );
}

export interface FetchOutcome {
  source: ReviewSource | null;
  stored: number;
  updated: number;
  pages: number;
  error: string | null;
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
    for (const pager of await pagers(deps, app, plan.source)) {
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const p: Page = await pager(cursor);
        outcome.pages++;
        const r = await storeReviews(deps.kv, app, plan.source, p.reviews);
        outcome.stored += r.stored;
        outcome.updated += r.updated;
        // Newest first: a page with nothing new means the rest was fetched before.
        if (!p.next || p.reviews.length === 0 || r.stored + r.updated === 0) break;
        cursor = p.next;
      }
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
