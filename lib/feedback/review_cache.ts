/**
 * Reviews of an app, held in memory per instance so answers over 100,000 reviews take milliseconds. Each
 * read checks the app's stamp (one KV read): any write bumps it, so a cached copy is never stale across
 * instances. At most MAX_CACHED reviews are kept; the least recently used app goes first. Reviews stored
 * under an older analysis are re-analysed on load, a bounded number at a time (reanalyse.ts).
 */
import type { Deps } from "../deps.ts";
import type { StoredReview } from "./types.ts";
import { listReviews, stampOf } from "./store.ts";
import { isStale, refreshStale } from "./reanalyse.ts";
import { loadAnalysis } from "./analysis/on_demand.ts";

const MAX_CACHED = 400_000;

interface Entry {
  stamp: bigint;
  reviews: StoredReview[];
}

/** The process's reviews in memory (createContext makes one; the feedback tools read through it). */
export class ReviewCache {
  #entries = new Map<string, Entry>();
  constructor(private deps: Deps) {}

  /** An app's reviews, newest first. */
  async get(org: string, app: string): Promise<StoredReview[]> {
    const cache = this.#entries, kv = this.deps.kv;
    const id = `${org}/${app}`;
    const stamp = await stampOf(kv, org, app);
    const hit = cache.get(id);
    if (hit && hit.stamp === stamp) {
      cache.delete(id);
      cache.set(id, hit); // most recently used last
      return hit.reviews;
    }
    // Newest first, so that answers walking them (quotes, lists) stop early; stale analyses refreshed.
    const listed = await listReviews(kv, org, app);
    if (listed.some(isStale)) await loadAnalysis(); // refreshStale re-analyses them
    const reviews = refreshStale(listed)
      .sort((a, b) => b.created_at - a.created_at);
    cache.delete(id);
    cache.set(id, { stamp, reviews });
    let total = 0;
    for (const e of cache.values()) total += e.reviews.length;
    for (const [k, e] of cache) {
      if (total <= MAX_CACHED || k === id) break;
      cache.delete(k);
      total -= e.reviews.length;
    }
    return reviews;
  }
}
