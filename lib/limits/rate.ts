/**
 * Per-minute fixed-window rate limits that hold across server instances sharing one KV.
 *
 * Each instance counts locally and folds its count into a shared KV counter (`sum`, a blind write with no
 * read-modify-write conflict) at least every SYNC_EVERY requests or SYNC_MS milliseconds per window, then
 * reads the shared total back. The admission check and the local increment happen with no await between
 * them, so concurrent requests on one instance can never slip past the limit together; at most one sync per
 * window is in flight, and what it folds in stays counted locally until the shared total that includes it
 * is read back.
 * Overshoot bound: with N instances, at most N × SYNC_EVERY requests past the limit in one minute
 * (each instance can admit at most SYNC_EVERY requests between two syncs). One instance never overshoots.
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";

export const SYNC_EVERY = 25;
export const SYNC_MS = 1_000;

interface Window {
  minute: number;
  shared: number; // total of all instances as last read from KV, plus what this instance folded in since
  unsynced: number; // admitted here and not yet folded into KV
  lastSync: number;
  inflight: Promise<void> | null;
  firstRead: Promise<void>; // the window's first read of the shared total
}

export interface RateDecision {
  ok: boolean;
  retryAfterS: number;
}

export class RateLimiter {
  #windows = new Map<string, Window>();
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  /** Folds local admissions into KV and reads the shared total; one at a time per window. */
  #sync(scope: string, id: string, w: Window): Promise<void> {
    if (w.inflight) return w.inflight;
    const run = async () => {
      const k = keys.rate(scope, id, w.minute);
      const delta = w.unsynced;
      w.unsynced = 0;
      w.shared += delta; // still counted while the write is on its way
      w.lastSync = this.clock.now();
      if (delta > 0) await this.kv.atomic().sum(k, BigInt(delta)).commit();
      const cur = await this.kv.get<Deno.KvU64>(k);
      // The read includes every delta this instance committed (one sync at a time).
      w.shared = cur.value ? Number(cur.value.value) : 0;
    };
    w.inflight = run().finally(() => (w.inflight = null));
    return w.inflight;
  }

  /** Admits one request of `id` in `scope` if fewer than `limit` were admitted this minute. */
  async take(scope: string, id: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const minute = Math.floor(now / 60_000);
    const name = `${scope}:${id}`;
    let w = this.#windows.get(name);
    if (!w || w.minute < minute) {
      if (this.#windows.size > 100_000) this.#windows.clear();
      const fresh: Window = {
        minute,
        shared: 0,
        unsynced: 0,
        lastSync: 0,
        inflight: null,
        firstRead: Promise.resolve(),
      };
      fresh.firstRead = this.#sync(scope, id, fresh); // learn what other instances admitted this minute
      this.#windows.set(name, fresh);
      w = fresh;
    }
    await w.firstRead;
    const retryAfterS = Math.max(1, Math.ceil(((w.minute + 1) * 60_000 - now) / 1000));
    if (w.shared + w.unsynced >= limit) {
      // Refusals re-read the shared total now and then, so a count elsewhere is seen.
      if (now - w.lastSync >= SYNC_MS) await this.#sync(scope, id, w);
      if (w.shared + w.unsynced >= limit) return { ok: false, retryAfterS };
    }
    w.unsynced++; // no await between the check above and this increment
    if (w.unsynced >= SYNC_EVERY || now - w.lastSync >= SYNC_MS || w.shared + w.unsynced >= limit) {
      await this.#sync(scope, id, w);
    }
    return { ok: true, retryAfterS: 0 };
  }
}
