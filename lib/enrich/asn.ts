/**
 * Address → autonomous system, from the CSV tables of `@ip-location-db/asn`
 * (`start,end,asn,"organization"`, inclusive ranges, as addresses or as decimal numbers).
 * Ranges sit in typed arrays sorted by start and are found by binary search: 16 bytes per IPv4 range,
 * 40 per IPv6 range, each organization name stored once. The CSV is parsed from bytes so that no
 * string of the whole file is kept alive by the names sliced out of it.
 */
import { type ParsedIp, parseIp } from "../ip.ts";
import { stringAt, type StringTable, stringTable } from "./string_table.ts";

export interface AsnHit {
  asn: number;
  org: string | null;
}

export interface AsnTable {
  lookup(ip: ParsedIp): AsnHit | null;
  readonly size: { v4: number; v6: number };
  /** The arrays behind the table, for the start-up cache (geo_file.ts). */
  readonly parts: AsnParts;
}

/** Sorted rows per family (1 word per IPv4 address, 4 per IPv6) and the organization names they point at. */
export interface AsnParts {
  v4: AsnRows;
  v6: AsnRows;
  names: StringTable;
}

/** A Uint32Array that grows while loading. */
class U32s {
  a = new Uint32Array(1024);
  n = 0;
  push(v: number) {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  /** Makes room for exactly `extra` more values, so that a known row count wastes nothing. */
  reserve(extra: number) {
    if (this.n + extra <= this.a.length) return;
    const b = new Uint32Array(this.n + extra);
    b.set(this.a.subarray(0, this.n));
    this.a = b;
  }
  done(): Uint32Array {
    return this.n === this.a.length ? this.a : this.a.slice(0, this.n);
  }
}

const COMMA = 44, NL = 10, CR = 13, QUOTE = 34, ZERO = 48;
const decoder = new TextDecoder();

const limbs = new Float64Array(8); // 16-bit limbs, most significant first

/** Parses an unsigned decimal of up to 39 digits into four 32-bit words; false if not all digits. */
function decimalWords(b: Uint8Array, from: number, to: number, out: number[]): boolean {
  if (from >= to) return false;
  if (to - from <= 15) { // fits a double exactly: the common IPv4 case
    let n = 0;
    for (let i = from; i < to; i++) {
      const d = b[i] - ZERO;
      if (d < 0 || d > 9) return false;
      n = n * 10 + d;
    }
    out[0] = out[1] = 0;
    out[2] = Math.floor(n / 0x100000000);
    out[3] = n - out[2] * 0x100000000;
    return true;
  }
  limbs.fill(0);
  for (let i = from; i < to;) {
    // limbs = limbs * 10^k + next k digits, k ≤ 9 so every product stays exact in a double
    let chunk = 0, scale = 1;
    for (const end = Math.min(to, i + 9); i < end; i++) {
      const d = b[i] - ZERO;
      if (d < 0 || d > 9) return false;
      chunk = chunk * 10 + d;
      scale *= 10;
    }
    let carry = chunk;
    for (let k = 7; k >= 0; k--) {
      const v = limbs[k] * scale + carry;
      carry = Math.floor(v / 65536);
      limbs[k] = v - carry * 65536;
    }
  }
  for (let k = 0; k < 4; k++) out[k] = limbs[2 * k] * 65536 + limbs[2 * k + 1];
  return true;
}

function addressWords(b: Uint8Array, from: number, to: number, out: number[]): 4 | 6 | null {
  if (decimalWords(b, from, to, out)) return out[0] === 0 && out[1] === 0 && out[2] === 0 ? 4 : 6;
  const ip = parseIp(decoder.decode(b.subarray(from, to)));
  if (!ip) return null;
  if (ip.v === 4) {
    out[0] = out[1] = out[2] = 0;
    out[3] = ip.n;
    return 4;
  }
  for (let k = 0; k < 4; k++) out[k] = ip.words[k];
  return 6;
}

function decodeName(b: Uint8Array, from: number, to: number): string {
  while (to > from && (b[to - 1] === CR || b[to - 1] === 32)) to--;
  if (to - from >= 2 && b[from] === QUOTE && b[to - 1] === QUOTE) {
    return decoder.decode(b.subarray(from + 1, to - 1)).replaceAll('""', '"');
  }
  return decoder.decode(b.subarray(from, to));
}

/** Builds one table from any number of CSV files' bytes (IPv4 and IPv6 rows may be mixed). */
export function buildAsnTable(csvFiles: Iterable<Uint8Array>): AsnTable {
  const names: string[] = [""];
  // The tables give one name per ASN. A null-prototype object: a Map proved several times slower here.
  const nameOfAsn: { [asn: number]: number } = Object.create(null);
  const v4 = { start: new U32s(), end: new U32s(), asn: new U32s(), org: new U32s() };
  const v6 = { start: new U32s(), end: new U32s(), asn: new U32s(), org: new U32s() };
  const s: number[] = [0, 0, 0, 0], e: number[] = [0, 0, 0, 0], asnWords: number[] = [0, 0, 0, 0];
  for (const b of csvFiles) {
    // Size the columns once for this file's rows, judged by its first row's address family.
    let rows = 0;
    for (let i = b.indexOf(NL); i >= 0; i = b.indexOf(NL, i + 1)) rows++;
    if (b.length && b[b.length - 1] !== NL) rows++;
    const firstComma = b.indexOf(COMMA);
    const family = firstComma > 0 ? addressWords(b, 0, firstComma, s) : null;
    const cols = family === 6 ? v6 : v4, width = family === 6 ? 4 : 1;
    cols.start.reserve(rows * width),
      cols.end.reserve(rows * width),
      cols.asn.reserve(rows),
      cols.org.reserve(rows);
    let pos = 0;
    while (pos < b.length) {
      let nl = b.indexOf(NL, pos);
      if (nl < 0) nl = b.length;
      const c1 = b.indexOf(COMMA, pos), c2 = c1 < 0 ? -1 : b.indexOf(COMMA, c1 + 1);
      const c3raw = c2 < 0 ? -1 : b.indexOf(COMMA, c2 + 1);
      const c3 = c3raw < 0 || c3raw > nl ? nl : c3raw;
      const from = pos;
      pos = nl + 1;
      if (c1 < 0 || c2 < 0 || c2 > nl) continue;
      const fs = addressWords(b, from, c1, s), fe = addressWords(b, c1 + 1, c2, e);
      if (!fs || fs !== fe) continue;
      let asnEnd = c3;
      while (asnEnd > c2 + 1 && b[asnEnd - 1] === CR) asnEnd--;
      if (!decimalWords(b, c2 + 1, asnEnd, asnWords) || asnWords[2] !== 0) continue;
      const asn = asnWords[3];
      let org = nameOfAsn[asn];
      if (org === undefined) {
        const name = c3 < nl ? decodeName(b, c3 + 1, nl) : "";
        org = nameOfAsn[asn] = name ? names.push(name) - 1 : 0;
      }
      if (fs === 4) {
        v4.start.push(s[3]);
        v4.end.push(e[3]);
        v4.asn.push(asn);
        v4.org.push(org);
      } else {
        for (let k = 0; k < 4; k++) v6.start.push(s[k]), v6.end.push(e[k]);
        v6.asn.push(asn);
        v6.org.push(org);
      }
    }
  }
  return packTable(
    sortRows({ start: v4.start.done(), end: v4.end.done(), asn: v4.asn.done(), org: v4.org.done() }, 1),
    sortRows({ start: v6.start.done(), end: v6.end.done(), asn: v6.asn.done(), org: v6.org.done() }, 4),
    stringTable(names),
  );
}

export interface AsnRows {
  start: Uint32Array; // `width` words per row
  end: Uint32Array;
  asn: Uint32Array;
  org: Uint32Array;
}

function compareWords(a: Uint32Array, ai: number, b: ArrayLike<number>, bi: number, width: number): number {
  for (let k = 0; k < width; k++) {
    const d = a[ai + k] - b[bi + k];
    if (d !== 0) return d;
  }
  return 0;
}

/** The published tables are sorted; sort anyway when a hand-made file is not. */
function sortRows(r: AsnRows, width: number): AsnRows {
  const n = r.asn.length;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) {
    sorted = compareWords(r.start, (i - 1) * width, r.start, i * width, width) <= 0;
  }
  if (sorted) return r;
  const order = Array.from({ length: n }, (_, i) => i)
    .sort((x, y) => compareWords(r.start, x * width, r.start, y * width, width));
  const out: AsnRows = {
    start: new Uint32Array(n * width),
    end: new Uint32Array(n * width),
    asn: new Uint32Array(n),
    org: new Uint32Array(n),
  };
  order.forEach((i, j) => {
    out.start.set(r.start.subarray(i * width, (i + 1) * width), j * width);
    out.end.set(r.end.subarray(i * width, (i + 1) * width), j * width);
    out.asn[j] = r.asn[i];
    out.org[j] = r.org[i];
  });
  return out;
}

/** Index of the last row starting at or before `key`, or -1. */
function lastStartAtOrBefore(r: AsnRows, key: ArrayLike<number>, width: number): number {
  let lo = 0, hi = r.asn.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (compareWords(r.start, mid * width, key, 0, width) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A table over arrays built earlier (by buildAsnTable, here or in another worker, or read from a cache). */
export function asnTableFrom(parts: AsnParts): AsnTable {
  return packTable(parts.v4, parts.v6, parts.names);
}

function packTable(r4: AsnRows, r6: AsnRows, names: StringTable): AsnTable {
  const hit = (r: AsnRows, i: number): AsnHit => ({ asn: r.asn[i], org: stringAt(names, r.org[i]) || null });
  const key4 = [0];
  return {
    size: { v4: r4.asn.length, v6: r6.asn.length },
    parts: { v4: r4, v6: r6, names },
    lookup(ip) {
      if (ip.v === 4) {
        key4[0] = ip.n;
        const i = lastStartAtOrBefore(r4, key4, 1);
        return i >= 0 && ip.n <= r4.end[i] ? hit(r4, i) : null;
      }
      const i = lastStartAtOrBefore(r6, ip.words, 4);
      return i >= 0 && compareWords(r6.end, i * 4, ip.words, 0, 4) >= 0 ? hit(r6, i) : null;
    },
  };
}
