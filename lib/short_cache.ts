/**
 * Records cached in one process for a few seconds (on a Clock, so tests move time): how the key directory
 * and the people lookups keep KV off every request while a change reaches every instance within `ttlMs`.
 * Past `max` entries the whole map is dropped: a bound on memory, not an eviction policy.
 */
import type { Clock } from "./clock.ts";

export class ShortCache {
  #entries = new Map<string, { value: unknown; at: number }>();
  constructor(private clock: Clock, private ttlMs: number, private max = 50_000) {}

  async get<T>(id: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const hit = this.#entries.get(id);
    if (hit && now - hit.at < this.ttlMs) return hit.value as T;
    const value = await load();
    if (this.#entries.size > this.max) this.#entries.clear();
    this.#entries.set(id, { value, at: now });
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
