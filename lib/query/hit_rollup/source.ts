/**
 * Hit rollups as questions read them: each part's head (merged rows, hour ranges) decoded once (parts are
 * immutable, so the part id is the key) and its hourly rows when a question takes some of its hours, kept in
 * bounded caches; the groups questions got from them (hits.ts); and the outcomes stored since a part was built
 * for its rows that were still pending then (a final outcome never changes, so it is kept once read).
 */
import { Lru } from "../../lru.ts";
import { verificationOutcomes } from "../../parts/build.ts";
import type { Verification } from "../../store/records.ts";
import { type HitRollup, rollupBytes } from "./build.ts";
import type { HitGroups } from "./groups.ts";
import { type HitRollupHead, readHitRollupHead, readHitRollupHours } from "./store.ts";

/** A part's rollup as questions first need it: its head (merged rows, hour ranges; store.ts). */
export type LoadedHitRollup = HitRollupHead;

/**
 * The decoded hit rollups' share of the engine's memory budget (`PART_CACHE_MB`): a twenty-fourth, 12 MB of
 * the default 288, out of the rollups' third (engine.ts): a 30-day period of the 10M-event bench site (1M
 * hits) weighs 2.9 MB of heads (16.6 MB with the hourly rows, as version 2 read them; a fourteenth until the
 * feature tables needed more: feature_rollup/planner.ts).
 */
export const hitRollupCacheBytes = (partCacheBytes: number): number => Math.floor(partCacheBytes / 24);

export class HitRollups {
  readonly cache: Lru<LoadedHitRollup>;
  /**
   * Questions' groups from rollups, by question and the rollup rows taken (lib/query/hits.ts): a quarter of
   * the capacity (3 MB of the default 12). The crawl coverage tool's hit questions over 30 days keep ~1 MB
   * (the 1M-event site: 338, 364, 165, 40 and 32 kB); in a sixteenth (768 kB once the share became a
   * twenty-fourth) they pushed each other out in turn and every warm ask added every part's rows again
   * (20-31 ms warm became 50-67 ms at every size).
   */
  readonly kept: Lru<HitGroups>;
  /** hourly rows of version 3 rollups, read when a question takes some hours of a part */
  readonly hours: Lru<HitRollup>;
  private loading = new Map<string, Promise<LoadedHitRollup | HitRollup | null>>();
  private outcomes = new Map<string, Verification>();
  /** stored bytes read from KV (benches) */
  bytesRead = 0;

  constructor(private kv: Deno.Kv, capacity: number) {
    // kept groups a quarter, hourly rows a sixth, heads the rest (7 MB of 12; 2.9 MB at 10M events)
    const kept = Math.floor(capacity / 4), hours = Math.floor(capacity / 6);
    this.cache = new Lru(capacity - kept - hours);
    this.hours = new Lru(hours);
    this.kept = new Lru(kept);
  }

  /** A part's rollup head, or null when it has none (yet: the backfill may write one later, so null is not kept). */
  get(partId: string): Promise<LoadedHitRollup | null> {
    const kept = this.cache.get(partId);
    if (kept) return Promise.resolve(kept);
    let loading = this.loading.get(partId) as Promise<LoadedHitRollup | null> | undefined;
    if (!loading) {
      loading = readHitRollupHead(this.kv, partId).then((got) => {
        if (!got) return null;
        this.bytesRead += got.stored;
        const { stored: _, ...head } = got;
        const weight = rollupBytes(head.whole) + 16 * head.hours + (head.r ? rollupBytes(head.r) : 0);
        this.cache.set(partId, head, weight);
        return head;
      }).finally(() => this.loading.delete(partId));
      this.loading.set(partId, loading);
    }
    return loading;
  }

  /**
   * A part's hourly rows (a period cutting it, or a bucket splitting it, takes some of its hours), or null when
   * its rollup went or was rewritten since its head was read. Kept apart from the head, by the same budget.
   */
  hourly(partId: string, head: LoadedHitRollup): Promise<HitRollup | null> {
    if (head.r) return Promise.resolve(head.r);
    const key = `${partId}|hours|${head.stamp}`;
    const kept = this.hours.get(key);
    if (kept) return Promise.resolve(kept);
    let loading = this.loading.get(key) as Promise<HitRollup | null> | undefined;
    if (!loading) {
      loading = readHitRollupHours(this.kv, partId, head).then((got) => {
        if (!got) {
          // the rollup went or was rewritten: its kept head goes too, so the read starting over reads the new
          // one (kept, every retry read with the stale head again and the question failed)
          if (this.cache.get(partId)?.stamp === head.stamp) this.cache.delete(partId);
          return null;
        }
        this.bytesRead += got.stored;
        this.hours.set(key, got.r, rollupBytes(got.r));
        return got.r;
      }).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
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
