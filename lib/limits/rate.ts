/**
 * Per-minute fixed-window rate limits that hold across server instances sharing one KV.
 *
 * Each instance counts locally and folds its count into a shared KV counter (`sum`, a blind write with no
 * read-modify-write conflict) at least every SYNC_EVERY requests or SYNC_MS milliseconds per window, then
 * reads the shared total back. A key is refused once local + shared reaches its limit.
 * Overshoot bound: with N instances, at most N × SYNC_EVERY requests past the limit in one minute
 * (each instance can admit at most SYNC_EVERY requests between two syncs). One instance never overshoots.
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";

export const SYNC_EVERY = 25;
export const SYNC_MS = 1_000;

interface Window {
  minute: number;
  shared: number; // total of all instances as last read from KV
  unsynced: number; // admitted here since the last sync
  lastSync: number;
}

export interface RateDecision {
  ok: boolean;
  retryAfterS: number;
}

export class RateLimiter {
  #windows = new Map<string, Window>();
  constructor(private kv: Deno.Kv, private clock: Clock) {}

  async #sync(scope: string, id: string, w: Window): Promise<void> {
    const k = keys.rate(scope, id, w.minute);
    const delta = w.unsynced;
    w.unsynced = 0;
    w.lastSync = this.clock.now();
    if (delta > 0) await this.kv.atomic().sum(k, BigInt(delta)).commit();
    const cur = await this.kv.get<Deno.KvU64>(k);
    w.shared = cur.value ? Number(cur.value.value) : 0;
  }

  /** Admits one request of `id` in `scope` if fewer than `limit` were admitted this minute. */
  async take(scope: string, id: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const minute = Math.floor(now / 60_000);
    const name = `${scope}:${id}`;
    let w = this.#windows.get(name);
    if (!w || w.minute !== minute) {
      if (this.#windows.size > 100_000) this.#windows.clear();
      w = { minute, shared: 0, unsynced: 0, lastSync: 0 };
      this.#windows.set(name, w);
      await this.#sync(scope, id, w);
    }
    const retryAfterS = Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
    if (w.shared + w.unsynced >= limit) {
      // Refusals near the limit re-read the shared total so a fresh minute elsewhere is seen.
      if (now - w.lastSync >= SYNC_MS) await this.#sync(scope, id, w);
      if (w.shared + w.unsynced >= limit) return { ok: false, retryAfterS };
    }
    w.unsynced++;
    if (w.unsynced >= SYNC_EVERY || now - w.lastSync >= SYNC_MS || w.shared + w.unsynced >= limit) {
      await this.#sync(scope, id, w);
    }
    return { ok: true, retryAfterS: 0 };
  }
}
