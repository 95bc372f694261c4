/**
 * Per-minute fixed-window rate limits that hold across server instances sharing one KV.
 *
 * Each instance counts locally and folds its count into a shared KV counter (`sum`, a blind write with no
 * read-modify-write conflict) every SYNC_EVERY admissions or SYNC_MS milliseconds per window, then reads the
 * shared total back. An instance decides on `shared` (the total as last read) plus `pending` (what it admitted
 * that this read does not include). `pending` never exceeds SYNC_EVERY: once it gets there, further requests
 * wait for the fold in flight and decide again on the fresh total. The check and the increment happen with no
 * await between them, so concurrent requests on one instance cannot slip past the limit together.
 *
 * Overshoot bound: with N instances, at most N × SYNC_EVERY requests past the limit in one minute (in fact
 * (N − 1) × SYNC_EVERY: every admission is either in some instance's last read or among its at most
 * SYNC_EVERY pending ones). One instance never overshoots. Far from the limit a request costs no KV round trip
 * except the one that triggers a fold.
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";

export const SYNC_EVERY = 25;
export const SYNC_MS = 1_000;

interface Window {
  minute: number;
  shared: number; // the shared total as last read from KV
  unsynced: number; // admitted here, not yet sent to KV
  unread: number; // sent to KV (or on the way) but not yet in a read of `shared`
  lastSync: number;
  inflight: Promise<void> | null;
  firstRead: Promise<void>; // the window's first read of the shared total
}

/** Admissions of this instance that the last read of the shared total does not include. */
const pending = (w: Window) => w.unsynced + w.unread;

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
      w.unread += delta; // still counted while the write is on its way
      w.lastSync = this.clock.now();
      if (delta > 0) {
        try {
          await this.kv.atomic().sum(k, BigInt(delta)).commit();
        } catch (err) {
          // Not written: the next fold sends it again.
          w.unread -= delta;
          w.unsynced += delta;
          throw err;
        }
      }
      const cur = await this.kv.get<Deno.KvU64>(k);
      // One fold at a time, so this read includes every delta this instance has written.
      w.shared = cur.value ? Number(cur.value.value) : 0;
      w.unread = 0;
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
        unread: 0,
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
    let reread = false;
    for (;;) {
      if (w.shared + pending(w) >= limit) {
        // Refusals re-read the shared total now and then, so a count elsewhere is seen.
        if (!reread && now - w.lastSync >= SYNC_MS) {
          reread = true;
          await this.#sync(scope, id, w);
          continue;
        }
        return { ok: false, retryAfterS };
      }
      if (pending(w) < SYNC_EVERY) break;
      // SYNC_EVERY admissions the shared total has not seen: wait for it to see them, then decide again.
      await this.#sync(scope, id, w);
    }
    w.unsynced++; // no await between the checks above and this increment
    if (w.unsynced >= SYNC_EVERY || now - w.lastSync >= SYNC_MS || w.shared + pending(w) >= limit) {
      await this.#sync(scope, id, w);
    }
    return { ok: true, retryAfterS: 0 };
  }
}
