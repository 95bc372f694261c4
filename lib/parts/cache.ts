/** A byte-bounded least-recently-used cache for decoded parts (they never change once published). */
export class LruCache<T> {
  private entries = new Map<string, { value: T; bytes: number }>();
  private used = 0;
  constructor(readonly maxBytes: number) {}

  get(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key); // re-insert: Map order is recency order
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: T, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return; // would evict everything and still not fit
    this.entries.set(key, { value, bytes });
    this.used += bytes;
    for (const [k, e] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.used -= e.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }
}
