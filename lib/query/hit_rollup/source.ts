/**
 * Hit rollups as questions read them: decoded once per part (parts are immutable, so the part id is the key),
 * kept in a bounded cache, with each hour's time range and its hours-merged rows (stored since version 2);
 * and the outcomes stored since a part was built for its rows that were still pending then (a final outcome
 * never changes, so it is kept once read).
 */
import { Lru } from "../../lru.ts";
import { verificationOutcomes } from "../../parts/build.ts";
import type { Verification } from "../../store/records.ts";
import { hourSpans } from "./answer.ts";
import { type HitRollup, mergeHours, rollupBytes } from "./build.ts";
import type { HitGroups } from "./groups.ts";
import { readHitRollup } from "./store.ts";

export interface LoadedHitRollup {
  r: HitRollup;
  /** its hours merged, for questions that take the whole part in one bucket */
  whole: HitRollup;
  spans: { min: Float64Array; max: Float64Array };
}

/**
 * The decoded hit rollups' share of the engine's memory budget (`PART_CACHE_MB`): a fourteenth, 20 MB of the
 * default 288, out of the rollups' third (engine.ts): a 30-day period of the 10M-event bench site (1M hits)
 * weighs 16.6 MB decoded, hourly and merged rows together.
 */
export const hitRollupCacheBytes = (partCacheBytes: number): number => Math.floor(partCacheBytes / 14);

export class HitRollups {
  readonly cache: Lru<LoadedHitRollup>;
  /**
   * Questions' groups from rollups, by question and the rollup rows taken (lib/query/hits.ts): a sixteenth of
   * the capacity (1.3 MB of the default 20; the crawl coverage tool's six hit questions over 30 days of the
   * 10M-event site keep ~1 MB).
   */
  readonly kept: Lru<HitGroups>;
  private loading = new Map<string, Promise<LoadedHitRollup | null>>();
  private outcomes = new Map<string, Verification>();
  /** stored bytes read from KV (benches) */
  bytesRead = 0;

  constructor(private kv: Deno.Kv, capacity: number) {
    const kept = Math.floor(capacity / 16);
    this.cache = new Lru(capacity - kept);
    this.kept = new Lru(kept);
  }

  /** A part's rollup, or null when it has none (yet: the backfill may write one later, so null is not kept). */
  get(partId: string): Promise<LoadedHitRollup | null> {
    const kept = this.cache.get(partId);
    if (kept) return Promise.resolve(kept);
    let loading = this.loading.get(partId);
    if (!loading) {
      loading = readHitRollup(this.kv, partId).then((got) => {
        if (!got) return null;
        this.bytesRead += got.stored;
        // version 2 stores the merged rows; a version 1 rollup (until the backfill reaches it) merges here
        const loaded = { r: got.r, whole: got.whole ?? mergeHours(got.r), spans: hourSpans(got.r) };
        this.cache.set(
          partId,
          loaded,
          rollupBytes(loaded.r) + rollupBytes(loaded.whole) + 16 * loaded.r.hours,
        );
        return loaded;
      }).finally(() => this.loading.delete(partId));
      this.loading.set(partId, loading);
    }
    return loading;
  }

  /** The outcome of each pending-at-build hit that has one now. */
  async outcomesOf(org: string, ids: string[]): Promise<(id: string) => Verification | undefined> {
    const unknown = ids.filter((id) => !this.outcomes.has(`${org}|${id}`));
    const fetched = unknown.length ? await verificationOutcomes(this.kv, org, unknown) : new Map();
    for (const [id, o] of fetched) {
      if (this.outcomes.size > 1_000_000) this.outcomes.clear(); // the answer reads `fetched` first
      this.outcomes.set(`${org}|${id}`, o);
    }
    return (id) => fetched.get(id) ?? this.outcomes.get(`${org}|${id}`);
  }
}
