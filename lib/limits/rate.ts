/**
 * Per-minute fixed-window rate limits that hold across server instances sharing one KV.
 *
 * Each instance counts locally and publishes its own count for the window under its own key (a blind `set`,
 * so instances never conflict) every few admissions (its allowance, below) or SYNC_MS milliseconds, then
 * lists the window's keys to learn what the other instances admitted. An instance decides on `others` (their counts as last
 * listed) plus its own count. What it admitted that the others cannot see yet never exceeds its allowance
 * (`unpublishedAllowance`: SYNC_EVERY for big limits, a twentieth of a small one, at least 1): once it gets
 * there, further requests wait for the publish in flight and decide again on fresh counts. The check
 * and the increment happen with no await between them, so concurrent requests on one instance cannot slip
 * past the limit together.
 *
 * Overshoot bound: with N instances, at most (N − 1) × allowance requests past the limit in one minute
 * (every admission is either in some instance's last listing or among its at most allowance unpublished
 * ones). One instance never overshoots. Far from the limit a request costs no KV round trip except the one
 * that triggers a publish. The allowance shrinks with the limit because a fixed 25 let a burst spread over 8
 * instances take 200 of a read key's 60 calls, and 8 × 10 sign-in attempts of an account's 10: now 60 + 7 × 3
 * and 10 + 7 × 1 at most. Big limits (the 3,000 and 6,000 a minute of ingest keys) keep 25, a few percent.
 *
 * The counters expire a minute after their window ends (KV's expireIn), and the hourly sweep deletes any left
 * over, so no counter outlives its use: some ids are hashed addresses, and addresses are not kept.
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { deleteWhere } from "../store/delete_where.ts";

export const SYNC_EVERY = 25;

/** How many admissions an instance may hold unpublished under `limit`: 25 from 500 up, at least 1. */
export const unpublishedAllowance = (limit: number) =>
  Math.min(SYNC_EVERY, Math.max(1, Math.floor(limit / 20)));
export const SYNC_MS = 1_000;
const MINUTE_MS = 60_000;
/** A window's counters live this long past its start (the window itself, then a minute's grace). */
export const COUNTER_TTL_MS = 2 * MINUTE_MS;

interface Window {
  minute: number;
  admitted: number; // admitted here this minute
  published: number; // of those, written to KV: what the other instances can see
  others: number; // the other instances' admissions this minute, as last listed
  lastSync: number;
  inflight: Promise<void> | null;
  firstRead: Promise<void>; // the window's first listing
}

export interface RateDecision {
  ok: boolean;
  retryAfterS: number;
}

export class RateLimiter {
  #windows = new Map<string, Window>();
  /** This instance's name in its counters' keys: each instance writes only its own. */
  #instance = crypto.randomUUID();
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Publishes this instance's count and lists everyone's; one at a time per window. */
  #sync(scope: string, id: string, w: Window): Promise<void> {
    if (w.inflight) return w.inflight;
    const run = async () => {
      w.lastSync = this.clock.now();
      const count = w.admitted;
      if (count > w.published) {
        const expireIn = Math.max(1, (w.minute * MINUTE_MS + COUNTER_TTL_MS) - w.lastSync);
        await this.kv.set(keys.rate(scope, id, w.minute, this.#instance), count, { expireIn });
        w.published = count; // not reached if the write failed: the next publish sends it again
      }
      let others = 0;
      for await (const e of this.kv.list<number>({ prefix: keys.rateWindow(scope, id, w.minute) })) {
        if (e.key[4] === this.#instance) {
          // Our own count is ahead of this window's only when the window was dropped from memory and
          // started again within the minute: carry on from what was published.
          if (e.value > w.admitted) w.admitted = w.published = e.value;
        } else if (typeof e.value === "number") others += e.value;
      }
      w.others = others;
    };
    w.inflight = run().finally(() => (w.inflight = null));
    return w.inflight;
  }

  /** Admits one request of `id` in `scope` if fewer than `limit` were admitted this minute. */
  async take(scope: string, id: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const minute = Math.floor(now / MINUTE_MS);
    const name = `${scope}:${id}`;
    let w = this.#windows.get(name);
    if (!w || w.minute < minute) {
      if (this.#windows.size > 100_000) this.#windows.clear();
      const fresh: Window = {
        minute,
        admitted: 0,
        published: 0,
        others: 0,
        lastSync: 0,
        inflight: null,
        firstRead: Promise.resolve(),
      };
      fresh.firstRead = this.#sync(scope, id, fresh); // learn what other instances admitted this minute
      this.#windows.set(name, fresh);
      w = fresh;
    }
    await w.firstRead;
    const retryAfterS = Math.max(1, Math.ceil(((w.minute + 1) * MINUTE_MS - now) / 1000));
    const allowance = unpublishedAllowance(limit);
    let reread = false;
    for (;;) {
      if (w.others + w.admitted >= limit) {
        // Refusals list the counts again now and then, so a count elsewhere is seen.
        if (!reread && now - w.lastSync >= SYNC_MS) {
          reread = true;
          await this.#sync(scope, id, w);
          continue;
        }
        return { ok: false, retryAfterS };
      }
      if (w.admitted - w.published < allowance) break;
      // as many admissions as the allowance that the other instances cannot see: publish, then decide again

      await this.#sync(scope, id, w);
    }
    w.admitted++; // no await between the checks above and this increment
    if (
      w.admitted - w.published >= allowance || now - w.lastSync >= SYNC_MS || w.others + w.admitted >= limit
    ) {
      await this.#sync(scope, id, w);
    }
    return { ok: true, retryAfterS: 0 };
  }
}

/**
 * Deletes every counter of a window that ended over a minute ago: KV's expiry is not immediate, and counters
 * written before they expired (older code summed one shared key per window) would otherwise stay for good.
 */
export function sweepRateCounters(kv: Deno.Kv, clock: Clock): Promise<number> {
  const current = Math.floor(clock.now() / MINUTE_MS);
  return deleteWhere(kv, { prefix: keys.rates() }, (e) => {
    const minute = e.key[3];
    return typeof minute !== "number" || minute < current - 1;
  });
}
