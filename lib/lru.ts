/**
 * Bounded caches. A Map keeps insertion order, so its first key is the oldest: `remember` puts a value into
 * a plain Map and drops the oldest entries past a count; `Lru` also moves a key to the end when it is read,
 * so what is used stays, and it can weigh entries (bytes) against its capacity.
 */

/** Sets `key` (as the newest entry) and keeps the map to at most `max` entries, dropping the oldest. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

/** A least-recently-used cache: entries weigh 1 unless `set` says otherwise; their total stays in capacity. */
export class Lru<V, K = string> {
  #map = new Map<K, { value: V; weight: number }>();
  #used = 0;
  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const e = this.#map.get(key);
    if (!e) return undefined;
    this.#map.delete(key); // re-inserted: the Map's order is the order of use
    this.#map.set(key, e);
    return e.value;
  }

  /** The value kept under `key`, without counting it as used (a look whether it is there). */
  peek(key: K): V | undefined {
    return this.#map.get(key)?.value;
  }

  /** An entry heavier than the whole capacity is not kept (it would push out everything and still not fit). */
  set(key: K, value: V, weight = 1): void {
    this.delete(key);
    if (weight > this.capacity) return;
    this.#map.set(key, { value, weight });
    this.#used += weight;
    for (const [k, e] of this.#map) {
      if (this.#used <= this.capacity) break;
      this.#map.delete(k);
      this.#used -= e.weight;
    }
  }

  delete(key: K): boolean {
    const e = this.#map.get(key);
    if (!e) return false;
    this.#map.delete(key);
    this.#used -= e.weight;
    return true;
  }

  /** The keys kept, least recently used first. */
  keys(): IterableIterator<K> {
    return this.#map.keys();
  }

  clear(): void {
    this.#map.clear();
    this.#used = 0;
  }

  /** Entries kept. */
  get size(): number {
    return this.#map.size;
  }

  /** Their total weight. */
  get used(): number {
    return this.#used;
  }
}
