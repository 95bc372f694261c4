/** A small deterministic PRNG (mulberry32) with the draws the site model needs. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Takes `n` draws unseen (the state only moves by a constant a draw). */
  skip(n: number): void {
    this.s = (this.s + n * 0x6d2b79f5) % 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  /** Geometric count >= 1 with the given mean. */
  geometric(mean: number): number {
    let n = 1;
    while (this.next() > 1 / mean) n++;
    return n;
  }
  exp(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
  /** A random (version 4) uuid, made as one flat string: built by `+=`, a 36-character id was a chain of ~15
   * string pieces (~490 bytes, not 66), and a 10M site holds ids of up to 1.5M waiting events. */
  uuid(): string {
    let k = 0;
    for (let i = 0; i < 16; i++) {
      let b = Math.floor(this.next() * 256);
      if (i === 6) b = (b & 0x0f) | 0x40; // version 4
      else if (i === 8) b = (b & 0x3f) | 0x80; // variant
      UUID[k++] = HEX_CODES[2 * b];
      UUID[k++] = HEX_CODES[2 * b + 1];
      if (i === 3 || i === 5 || i === 7 || i === 9) UUID[k++] = 45; // "-"
    }
    return String.fromCharCode.apply(null, UUID as unknown as number[]);
  }
}

/** The two hex digits of each byte value, as character codes; a uuid's characters are written to UUID. */
const HEX_CODES = Uint8Array.from(
  Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0")).join(""),
  (c) => c.charCodeAt(0),
);
const UUID = new Uint8Array(36);

/** Draws from fixed weights in O(log n). */
export class Weighted<T> {
  private cum: number[] = [];
  private total = 0;
  constructor(readonly items: readonly T[], weights: readonly number[]) {
    for (const w of weights) this.cum.push(this.total += w);
  }
  draw(r: Rng): T {
    const x = r.next() * this.total;
    let lo = 0, hi = this.cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cum[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo];
  }
}

/** Power-law popularity: rank k gets weight 1 / k^s. */
export function zipf<T>(items: readonly T[], s = 1.1): Weighted<T> {
  return new Weighted(items, items.map((_, k) => 1 / Math.pow(k + 1, s)));
}
