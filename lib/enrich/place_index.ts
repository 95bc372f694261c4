/**
 * Address → place, as sorted ranges in typed arrays, about a third of the MMDB files they come from.
 * Each range is only its first address and a 24-bit place code; it lasts until the next range starts.
 * Ranges are bucketed by their high bits so a row keeps only the low part: IPv4 rows hold 16 bits
 * (bucket = first 16 bits), IPv6 rows 32 (bucket = first 32 bits, rows = the next 32, so /64 blocks).
 * The few IPv6 ranges that start inside a /64 go to a small `deep` table of full 128-bit starts; their
 * /64 block's row carries the code DEEP. Place codes: 0 none, 1 DEEP, 2 + i the place dictionary's row i.
 */
import type { ParsedIp } from "../ip.ts";

export const NO_PLACE = 0, DEEP = 1, FIRST_PLACE = 2;

/** The arrays of one family, as stored in the cache file. */
export interface FamilyParts {
  keys: Uint32Array; // distinct bucket high parts, ascending
  first: Uint32Array; // keys.length + 1 entries: the first row of each bucket, then the row count
  low: Uint16Array | Uint32Array; // each row's start below the bucket bits
  codeLo: Uint16Array; // place code, low 16 bits
  codeHi: Uint8Array; // place code, high 8 bits
  deepStarts: Uint32Array; // IPv6 only: 4 words per deep row
  deepCodes: Uint32Array;
}

/** Growable columns for building. */
class Column {
  a: Uint32Array;
  n = 0;
  constructor(size = 1024) {
    this.a = new Uint32Array(Math.max(16, size));
  }
  push(v: number) {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.n * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  last() {
    return this.n ? this.a[this.n - 1] : -1;
  }
  done() {
    return this.a.slice(0, this.n);
  }
}

/** Buckets sorted (high, low, code) rows, merging neighbours with the same code. */
function bucket(
  rows: number,
  high: (i: number) => number,
  low: (i: number) => number,
  code: (i: number) => number,
  lowBits: 16 | 32,
) {
  const keys = new Column(), first = new Column(), lows = new Column(rows), codes = new Column(rows);
  for (let i = 0; i < rows; i++) {
    const c = code(i);
    if (lows.n && codes.last() === c) continue;
    const h = high(i);
    if (keys.last() !== h) keys.push(h), first.push(lows.n);
    lows.push(low(i)), codes.push(c);
  }
  first.push(lows.n);
  const n = lows.n, lowOut = lowBits === 16 ? new Uint16Array(n) : new Uint32Array(n);
  const codeLo = new Uint16Array(n), codeHi = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    lowOut[i] = lows.a[i], codeLo[i] = codes.a[i] & 0xffff, codeHi[i] = codes.a[i] >>> 16;
  }
  return { keys: keys.done(), first: first.done(), low: lowOut, codeLo, codeHi };
}

/** IPv4 ranges: `starts` one word per row, `codes` place codes, both in address order. */
export function buildFamily4(starts: Uint32Array, codes: Uint32Array): FamilyParts {
  const b = bucket(starts.length, (i) => starts[i] >>> 16, (i) => starts[i] & 0xffff, (i) => codes[i], 16);
  return { ...b, deepStarts: new Uint32Array(0), deepCodes: new Uint32Array(0) };
}

/** IPv6 ranges: `starts` four words per row. */
export function buildFamily6(starts: Uint32Array, codes: Uint32Array): FamilyParts {
  const n = codes.length;
  const isDeep = (i: number) => starts[i * 4 + 2] !== 0 || starts[i * 4 + 3] !== 0;
  const sameBlock = (i: number, j: number) =>
    starts[i * 4] === starts[j * 4] && starts[i * 4 + 1] === starts[j * 4 + 1];
  // Rows of /64 blocks that hold a deep start go, whole, to the deep table; the block row gets DEEP.
  const deepStarts = new Column(),
    deepCodes = new Column(),
    mainRow = new Column(n),
    mainCode = new Column(n);
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && sameBlock(i, j)) j++;
    let deep = false;
    for (let k = i; k < j && !deep; k++) deep = isDeep(k);
    if (!deep) {
      for (let k = i; k < j; k++) mainRow.push(k), mainCode.push(codes[k]);
    } else {
      // The block's first address belongs to the range before it unless a range starts right there.
      if (isDeep(i)) {
        deepStarts.push(starts[i * 4]),
          deepStarts.push(starts[i * 4 + 1]),
          deepStarts.push(0),
          deepStarts.push(0);
        deepCodes.push(i > 0 ? codes[i - 1] : NO_PLACE);
      }
      for (let k = i; k < j; k++) {
        for (let w = 0; w < 4; w++) deepStarts.push(starts[k * 4 + w]);
        deepCodes.push(codes[k]);
      }
      mainRow.push(i), mainCode.push(DEEP);
    }
    i = j;
  }
  const rows = mainRow.done(), mc = mainCode.done();
  const b = bucket(rows.length, (i) => starts[rows[i] * 4], (i) => starts[rows[i] * 4 + 1], (i) => mc[i], 32);
  return { ...b, deepStarts: deepStarts.done(), deepCodes: deepCodes.done() };
}

/** The code of the range holding (high, low), or NO_PLACE. */
function bucketCode(p: FamilyParts, high: number, low: number): number {
  const { keys, first, low: lows } = p;
  let lo = 0, hi = keys.length - 1, b = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] <= high) b = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  if (b < 0) return NO_PLACE;
  let row = first[b + 1] - 1;
  if (keys[b] === high) {
    let l = first[b], h = first[b + 1] - 1;
    row = first[b] - 1;
    while (l <= h) {
      const mid = (l + h) >>> 1;
      if (lows[mid] <= low) row = mid, l = mid + 1;
      else h = mid - 1;
    }
  }
  return row < 0 ? NO_PLACE : p.codeLo[row] | (p.codeHi[row] << 16);
}

function deepCode(p: FamilyParts, w: readonly number[]): number {
  const s = p.deepStarts;
  let lo = 0, hi = p.deepCodes.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    let cmp = 0;
    for (let k = 0; k < 4 && cmp === 0; k++) cmp = s[mid * 4 + k] - w[k];
    if (cmp <= 0) found = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  return found < 0 ? NO_PLACE : p.deepCodes[found];
}

/** The place code of an address; the IPv4 family answers IPv4, the IPv6 family IPv6. */
export function placeCode(v4: FamilyParts | null, v6: FamilyParts | null, ip: ParsedIp): number {
  if (ip.v === 4) {
    if (v4) return bucketCode(v4, ip.n >>> 16, ip.n & 0xffff);
    // Only a combined database: IPv4 sits at ::a.b.c.d in its tree.
    return v6 ? placeCode(null, v6, { v: 6, words: [0, 0, 0, ip.n] }) : NO_PLACE;
  }
  if (!v6) return NO_PLACE;
  const code = bucketCode(v6, ip.words[0], ip.words[1]);
  return code === DEEP ? deepCode(v6, ip.words) : code;
}
