/**
 * Exact sets of visitor numbers (dense per organization and environment: lib/parts/visitor_numbers.ts) as
 * rollups keep them: sorted, distinct, stored as deltas in LEB128 varints. A rollup row's visitors of one
 * hour are a small share of all visitors, so the gaps are small and most take one or two bytes (an array
 * container of a Roaring bitmap takes two per member; a bitset container pays off only past 1/16 density).
 * Counting a union of many sets is `DistinctCounter`: one mark per visitor number, reused for every group,
 * so a period's visitors of every page cost the sum of the sets' sizes and one array for all groups.
 */

/** Scratch output of `encodeSet`, grown as needed (the set is copied out of it). */
let scratch = new Uint8Array(4096);
let sortScratch = new Uint32Array(1024);

/** Bytes of `values` (any order, repeats allowed) as a sorted, distinct delta-varint list. */
export function encodeSet(values: ArrayLike<number>): Uint8Array {
  // most callers pass numbers already ascending (rows in visitor order): copying and sorting is then skipped
  let ascending = !(values[0] < 0);
  for (let i = 1; i < values.length; i++) {
    if (values[i] < values[i - 1]) {
      ascending = false;
      break;
    }
  }
  let sorted: ArrayLike<number> = values;
  if (!ascending) {
    // a copy in reused scratch, sorted: insertion sort for the many short sets, the typed sort for long ones
    const n = values.length;
    if (sortScratch.length < n) sortScratch = new Uint32Array(Math.max(n, 2 * sortScratch.length));
    const a = sortScratch;
    for (let i = 0; i < n; i++) a[i] = values[i];
    if (n <= 32) {
      for (let i = 1; i < n; i++) {
        const x = a[i];
        let j = i - 1;
        while (j >= 0 && a[j] > x) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = x;
      }
      sorted = a.subarray(0, n);
    } else sorted = a.subarray(0, n).sort();
  }
  if (scratch.length < sorted.length * 5) scratch = new Uint8Array(sorted.length * 5);
  const out = scratch;
  let o = 0, prev = -1;
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i];
    if (v === prev) continue;
    let d = v - prev - 1; // 0 for consecutive numbers
    prev = v;
    while (d >= 0x80) {
      out[o++] = (d & 0x7f) | 0x80;
      d >>>= 7;
    }
    out[o++] = d;
  }
  return out.slice(0, o);
}

/** Calls `each` with every member of an encoded set at bytes[from, to), in ascending order. */
export function forEachMember(bytes: Uint8Array, from: number, to: number, each: (v: number) => void): void {
  let prev = -1;
  for (let i = from; i < to;) {
    let d = 0, shift = 0, b: number;
    do {
      b = bytes[i++];
      d += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    prev += d + 1;
    each(prev);
  }
}

/**
 * Writes the members of an encoded set at bytes[from, to) into `out` from index `at` (room for `to - from`
 * more: at most one member a byte); returns the index after the last. Inlined varints: a hot loop.
 */
export function decodeSetInto(
  bytes: Uint8Array,
  from: number,
  to: number,
  out: Uint32Array,
  at: number,
): number {
  let n = at, prev = -1;
  for (let i = from; i < to;) {
    let d = bytes[i++];
    if (d >= 0x80) {
      d &= 0x7f;
      let shift = 7, b: number;
      do {
        b = bytes[i++];
        d += (b & 0x7f) * 2 ** shift;
        shift += 7;
      } while (b & 0x80);
    }
    prev += d + 1;
    out[n++] = prev;
  }
  return n;
}

/** Members of an encoded set (tests, small sets). */
export function decodeSet(bytes: Uint8Array, from = 0, to = bytes.length): number[] {
  const out: number[] = [];
  forEachMember(bytes, from, to, (v) => out.push(v));
  return out;
}

/**
 * Distinct members over several sets, group after group: `next()` starts a group, `add` counts members not
 * seen in it yet. One bit per visitor number serves every group: `next()` clears only the words the group
 * set (kept in a list as they are first set). A bit (125 kB at a million visitor numbers, within a core's
 * cache) where an Int32 mark per number was 4 MB: counting a cold overview's ten shown pages' viewers at 10M
 * events went from ~27-32 to ~14-15 ms per 1.8 MB of sets measured alone, and the question's garbage is smaller.
 */
export class DistinctCounter {
  private words: Uint32Array;
  /** the words set in the current group (each once: listed when it goes from 0 to not) */
  private touched: Int32Array;
  private nTouched = 0;
  count = 0;

  constructor(size: number) {
    this.words = new Uint32Array(Math.max(1, Math.ceil(size / 32)));
    this.touched = new Int32Array(256);
  }

  /** Starts a new group (its count from 0). */
  next(): void {
    const words = this.words, touched = this.touched;
    for (let i = 0; i < this.nTouched; i++) words[touched[i]] = 0;
    this.nTouched = 0;
    this.count = 0;
  }

  add(v: number): void {
    const w = v >>> 5;
    if (w >= this.words.length) this.grow(w + 1);
    const m = 1 << (v & 31), x = this.words[w];
    if (x & m) return;
    if (x === 0) this.touch(w);
    this.words[w] = x | m;
    this.count++;
  }

  /** Adds every member of an encoded set at bytes[from, to). */
  addEncoded(bytes: Uint8Array, from: number, to: number): void {
    // forEachMember and add inlined: this is the rollup answers' innermost loop
    let prev = -1, words = this.words, count = this.count;
    for (let i = from; i < to;) {
      let d = bytes[i++];
      if (d >= 0x80) {
        // a gap of 128 or more: the rest of its varint (numbers stay below 2^32, so shifts suffice)
        d &= 0x7f;
        let shift = 7, b: number;
        do {
          b = bytes[i++];
          d += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
      }
      prev += d + 1;
      const w = prev >>> 5;
      if (w >= words.length) {
        this.grow(w + 1);
        words = this.words;
      }
      const m = 1 << (prev & 31), x = words[w];
      if (x & m) continue;
      if (x === 0) this.touch(w);
      words[w] = x | m;
      count++;
    }
    this.count = count;
  }

  get bytes(): number {
    return this.words.byteLength + this.touched.byteLength;
  }

  private touch(w: number) {
    if (this.nTouched === this.touched.length) {
      const next = new Int32Array(this.touched.length * 2);
      next.set(this.touched);
      this.touched = next;
    }
    this.touched[this.nTouched++] = w;
  }

  private grow(words: number) {
    const next = new Uint32Array(Math.max(words, this.words.length * 2));
    next.set(this.words);
    this.words = next;
  }
}
