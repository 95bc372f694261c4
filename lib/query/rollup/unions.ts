/**
 * A period's visitors per value of one field, counted once and kept: a list sorted by visitors reads every
 * row's union (all the hourly sets of the period: millions of members at 10M events), so the parts' unions are
 * counted in one pass and kept as a bit per visitor number per value, which is what the raw tail's visitors
 * need: a tail visitor adds to a value's count only when the parts' union of that value does not hold it.
 * Exact. Kept in a share of the rollup cache of its own: pieces read every question fill theirs.
 */
import type { RollupParts } from "./pieces.ts";
import type { Rollup } from "./build.ts";
import { releaseViews } from "./let_go.ts";

/** The parts' unions of one field (or the hours' totals) in a period. */
export interface PeriodUnion {
  /** value → visitors (or viewers) over the parts */
  counts: Map<string | null, number>;
  ids: Map<string | null, number>;
  /** per value id, a bit per visitor number: its visitors over the parts */
  bits: Uint8Array[];
  /** memory held (for the cache's budget) */
  bytes: number;
}

/** A kept union's largest size (a bit per visitor number per value): past it the rows' unions are computed as asked. */
const MAX_BYTES = 16 * 1024 * 1024;

/**
 * The parts' union per value of field f's rows in scope (`rowsOf(i, rows)`: part i's in scope), members of
 * visitors (or viewers); null when the field has too many values to keep.
 */
export function buildUnion(
  parts: RollupParts[],
  f: number,
  rowsOf: (partIndex: number, r: Rollup) => number[],
  viewers: boolean,
  space: number,
  /** a row's group instead of its value (a trend's bucket of the row's hour) */
  keyOf: ((r: Rollup, i: number) => string | null) | null = null,
): PeriodUnion | null {
  const b = new UnionBuilder(viewers, space, keyOf);
  for (let pi = 0; pi < parts.length; pi++) {
    const r = parts[pi].field(f);
    if (!b.add(r, rowsOf(pi, r))) return null;
  }
  return b.done();
}

/**
 * A union built part by part (`buildUnion` adds every part at once): a period's parts can be added as they are
 * read, while the next ones are read from KV. The same union, whatever the order parts are added in.
 */
export class UnionBuilder {
  private ids = new Map<string | null, number>();
  private bits: Uint8Array[] = [];
  private size: number;
  private tooMany = false;

  constructor(
    private viewers: boolean,
    space: number,
    private keyOf: ((r: Rollup, i: number) => string | null) | null = null,
  ) {
    this.size = wordBytes(Math.max(1, space));
  }

  /** Adds a part's rows (of the field, in scope); false once the field has too many values to keep. */
  add(r: Rollup, rows: number[]): boolean {
    if (this.tooMany) return false;
    if (!rows.length) return true;
    const { ids, bits, keyOf, viewers } = this;
    // this piece's value code → id
    const idOf = new Int32Array(r.values.length).fill(-1);
    for (const i of rows) {
      let x = keyOf ? -1 : idOf[r.value[i]];
      if (x < 0) {
        const v = keyOf ? keyOf(r, i) : r.values[r.value[i]];
        x = ids.get(v) ?? -1;
        if (x < 0) {
          if ((ids.size + 1) * this.size > MAX_BYTES) {
            this.tooMany = true;
            // (up to 16 MB of bits no one will read: freed now, not at V8's next full collection)
            releaseViews(bits);
            bits.length = 0;
            return false;
          }
          ids.set(v, x = ids.size);
          bits.push(new Uint8Array(this.size));
        }
        idOf[r.value[i]] = x;
      }
      const from = viewers ? r.viewAt[i] : r.visAt[i], to = viewers ? r.visAt[i + 1] : r.viewAt[i];
      let k = orMembers(bits[x], r.sets, from, to, -1);
      while (k < to) {
        // a number past the space given (not expected from parts): every value's bits grow
        const size = this.size = Math.max(wordBytes(stopped.at + 1), this.size * 2);
        bits.forEach((old, y) => (bits[y] = new Uint8Array(size)).set(old));
        k = orMembers(bits[x], r.sets, k, to, stopped.prev);
      }
    }
    return true;
  }

  /** The union of what was added (null: too many values to keep). */
  done(): PeriodUnion | null {
    if (this.tooMany) return null;
    const byValue = new Map<string | null, number>();
    for (const [v, x] of this.ids) byValue.set(v, bitCount(this.bits[x]));
    return {
      counts: byValue,
      ids: this.ids,
      bits: this.bits,
      bytes: this.bits.length * this.size + this.ids.size * 60 + 200,
    };
  }
}

/** Bytes of a bit per number below n, whole 32-bit words (`bitCount` then counts them all a word at a time). */
const wordBytes = (n: number) => Math.ceil(n / 32) * 4;

/** Where `orMembers` stopped: the member that did not fit, and the one before it. */
const stopped = { at: -1, prev: -1 };

/**
 * Sets the bits of a set's members (delta varints in bytes[from, to), after member `prev`) in b; returns `to`,
 * or the index of the first member past b's bits (then in `stopped`), to go on from once b is larger. Its own
 * small function: as a loop inside `add`, V8 compiled only the loop (on-stack replacement) and left it at every
 * row's end, so most members were decoded by the interpreter (~35 ns a member instead of ~6).
 */
function orMembers(b: Uint8Array, bytes: Uint8Array, from: number, to: number, prev: number): number {
  const limit = b.length * 8;
  for (let k = from; k < to;) {
    const at = k;
    let d = bytes[k++];
    if (d >= 0x80) {
      d &= 0x7f;
      let shift = 7, c: number;
      do {
        c = bytes[k++];
        d += (c & 0x7f) * 2 ** shift;
        shift += 7;
      } while (c & 0x80);
    }
    const v = prev + d + 1;
    if (v >= limit) {
      stopped.at = v;
      stopped.prev = prev;
      return at;
    }
    prev = v;
    // set without asking whether it was (most members are in an earlier part's set too: a branch the
    // processor mispredicts); the members are counted once, in `done`
    b[v >> 3] |= 1 << (v & 7);
  }
  return to;
}

/** The set bits of a bitmap: 32 at a time (a 125 KB bitmap of 1M visitor numbers in ~0.1 ms). */
export function bitCount(b: Uint8Array): number {
  // (an unaligned view, not made here, is counted a byte at a time)
  const whole = b.byteOffset % 4 === 0 ? b.length >> 2 : 0;
  const words = new Uint32Array(b.buffer, whole ? b.byteOffset : 0, whole);
  let n = 0;
  for (let i = 0; i < whole; i++) {
    let w = words[i];
    w = w - ((w >>> 1) & 0x55555555);
    w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
    n += Math.imul((w + (w >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return whole * 4 < b.length ? n + bytesBitCount(b, whole * 4) : n;
}

/** The set bits of b from byte i on (apart: a loop V8 rarely sees in `bitCount` made it drop that code). */
function bytesBitCount(b: Uint8Array, i: number): number {
  let n = 0;
  for (; i < b.length; i++) {
    let v = b[i];
    while (v) {
      v &= v - 1;
      n++;
    }
  }
  return n;
}

/** Whether the parts' union of value id x holds visitor v. */
export function holds(u: PeriodUnion, v: number, x: number): boolean {
  const b = u.bits[x];
  return (v >> 3) < b.length && (b[v >> 3] & (1 << (v & 7))) !== 0;
}
