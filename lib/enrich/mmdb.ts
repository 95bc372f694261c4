/**
 * A small reader of the MaxMind DB format (the DB-IP Lite city files are in it), written for one job:
 * turning a whole database into sorted address ranges, each with the place it names. The tree is walked
 * once, left before right, so ranges come out in address order; neighbouring leaves that point at the
 * same record merge into one range. Only the fields geo needs are kept from each record.
 * Format: https://maxmind.github.io/MaxMind-DB/ (search tree, 16 zero bytes, data section, metadata).
 */

const METADATA_MARKER = [0xab, 0xcd, 0xef, ...new TextEncoder().encode("MaxMind.com")];
const decoder = new TextDecoder();

export interface MmdbMetadata {
  nodeCount: number;
  recordSize: 24 | 28 | 32;
  ipVersion: 4 | 6;
  metadataStart: number;
}

/** A decoded data-section value: maps, arrays and scalars as plain JS values. */
export type MmdbValue = string | number | boolean | bigint | Uint8Array | MmdbValue[] | {
  [k: string]: MmdbValue;
} | null;

/** Short ASCII strings (most names) without TextDecoder, whose per-call cost dominates here. */
function utf8(b: Uint8Array, at: number, size: number): string {
  if (size > 64) return decoder.decode(b.subarray(at, at + size));
  let out = "";
  for (let i = at; i < at + size; i++) {
    if (b[i] >= 0x80) return decoder.decode(b.subarray(at, at + size));
    out += String.fromCharCode(b[i]);
  }
  return out;
}

/** Reads one value at `at`; `base` is where the data section starts (pointers count from it). */
export function decodeValue(b: Uint8Array, base: number, at: number): { value: MmdbValue; next: number } {
  const ctrl = b[at++];
  let type = ctrl >> 5;
  if (type === 1) { // pointer: the value lives elsewhere, reading goes on after the pointer
    const ss = (ctrl >> 3) & 3, v = ctrl & 7;
    let p: number;
    if (ss === 0) p = (v << 8) | b[at];
    else if (ss === 1) p = ((v << 16) | (b[at] << 8) | b[at + 1]) + 2048;
    else if (ss === 2) p = ((v << 24) | (b[at] << 16) | (b[at + 1] << 8) | b[at + 2]) + 526336;
    else p = ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
    return { value: decodeValue(b, base, base + p).value, next: at + ss + 1 };
  }
  if (type === 0) type = 7 + b[at++];
  let size = ctrl & 31;
  if (size === 29) size = 29 + b[at++];
  else if (size === 30) size = 285 + ((b[at] << 8) | b[at + 1]), at += 2;
  else if (size === 31) size = 65821 + ((b[at] << 16) | (b[at + 1] << 8) | b[at + 2]), at += 3;
  const uint = () => {
    let n = 0;
    for (let i = 0; i < size; i++) n = n * 256 + b[at + i];
    return n;
  };
  switch (type) {
    case 2:
      return { value: utf8(b, at, size), next: at + size };
    case 3:
      return { value: new DataView(b.buffer, b.byteOffset + at, 8).getFloat64(0), next: at + 8 };
    case 4:
      return { value: b.slice(at, at + size), next: at + size };
    case 5:
    case 6:
      return { value: uint(), next: at + size };
    case 7: {
      const out: { [k: string]: MmdbValue } = {};
      for (let i = 0; i < size; i++) {
        const k = decodeValue(b, base, at);
        const v = decodeValue(b, base, k.next);
        out[String(k.value)] = v.value;
        at = v.next;
      }
      return { value: out, next: at };
    }
    case 8: {
      const n = uint();
      return { value: size === 4 ? n | 0 : n, next: at + size };
    }
    case 9:
    case 10: {
      let n = 0n;
      for (let i = 0; i < size; i++) n = (n << 8n) | BigInt(b[at + i]);
      return { value: n, next: at + size };
    }
    case 11: {
      const out: MmdbValue[] = [];
      for (let i = 0; i < size; i++) {
        const v = decodeValue(b, base, at);
        out.push(v.value);
        at = v.next;
      }
      return { value: out, next: at };
    }
    case 14:
      return { value: size !== 0, next: at };
    case 15:
      return { value: new DataView(b.buffer, b.byteOffset + at, 4).getFloat32(0), next: at + 4 };
    default:
      throw new Error(`mmdb: unknown data type ${type} at ${at - 1}`);
  }
}

export function readMetadata(b: Uint8Array): MmdbMetadata {
  // The marker is in the last 128 KiB; search backwards for its last occurrence.
  const floor = Math.max(0, b.length - 128 * 1024);
  outer: for (let i = b.length - METADATA_MARKER.length; i >= floor; i--) {
    for (let k = 0; k < METADATA_MARKER.length; k++) if (b[i + k] !== METADATA_MARKER[k]) continue outer;
    const start = i + METADATA_MARKER.length;
    const meta = decodeValue(b, start, start).value as { [k: string]: MmdbValue };
    const nodeCount = Number(meta?.node_count), recordSize = Number(meta?.record_size);
    const ipVersion = Number(meta?.ip_version);
    if (![24, 28, 32].includes(recordSize) || !(nodeCount > 0) || (ipVersion !== 4 && ipVersion !== 6)) {
      throw new Error("mmdb: metadata without a usable node_count, record_size or ip_version");
    }
    return { nodeCount, recordSize: recordSize as 24 | 28 | 32, ipVersion, metadataStart: i };
  }
  throw new Error("mmdb: no metadata marker, not a MaxMind DB file");
}

/**
 * The search tree's leaves in address order, neighbours with the same record merged: `starts` holds each
 * range's first address (`width` words, most significant first; 1 for IPv4 trees, 4 for IPv6), `records`
 * its record's offset in the data section, -1 for none.
 */
export function treeRanges(b: Uint8Array, m: MmdbMetadata): { starts: Uint32Array; records: Int32Array } {
  const bits = m.ipVersion === 4 ? 32 : 128, width = bits / 32, nodeCount = m.nodeCount;
  const nodeBytes = m.recordSize / 4, size = m.recordSize;
  if (nodeCount * nodeBytes + 16 > m.metadataStart) throw new Error("mmdb: search tree larger than the file");
  let records = new Int32Array(1 << 18), starts = new Uint32Array(records.length * width), n = 0, last = -2;
  const words = new Uint32Array(4);
  const child = (node: number, right: number): number => {
    const o = node * nodeBytes;
    if (size === 28) {
      return right
        ? (b[o + 3] & 0x0f) * 0x1000000 + ((b[o + 4] << 16) | (b[o + 5] << 8) | b[o + 6])
        : (b[o + 3] >> 4) * 0x1000000 + ((b[o] << 16) | (b[o + 1] << 8) | b[o + 2]);
    }
    const p = o + right * (size >> 3);
    if (size === 24) return (b[p] << 16) | (b[p + 1] << 8) | b[p + 2];
    return ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0;
  };
  const leaf = (value: number) => {
    const rec = value === nodeCount ? -1 : value - nodeCount - 16;
    if (rec === last) return;
    last = rec;
    if (n === records.length) {
      const r = new Int32Array(n * 2), s = new Uint32Array(n * 2 * width);
      r.set(records), s.set(starts);
      records = r, starts = s;
    }
    records[n] = rec;
    for (let k = 0; k < width; k++) starts[n * width + k] = words[4 - width + k];
    n++;
  };
  // Depth is at most 128, so plain recursion is safe; `words` carries the path's bits.
  const walk = (node: number, depth: number) => {
    if (depth >= bits) throw new Error("mmdb: search tree deeper than the address");
    const w = 4 - width + (depth >> 5), bit = (1 << (31 - (depth & 31))) >>> 0;
    for (let side = 0; side < 2; side++) {
      if (side) words[w] = (words[w] | bit) >>> 0;
      const value = child(node, side);
      if (value < nodeCount) walk(value, depth + 1);
      else leaf(value);
    }
    words[w] = (words[w] & ~bit) >>> 0;
  };
  walk(0, 0);
  return { starts: starts.slice(0, n * width), records: records.slice(0, n) };
}

const KEY_COUNTRY_CODE = new TextEncoder().encode("country_code"),
  KEY_CITY = new TextEncoder().encode("city");
const KEY_COUNTRY = new TextEncoder().encode("country");

/**
 * Country and city of the record at data-section offset `rec`: flat DB-IP rows ({country_code, city}) and
 * MaxMind-style rows ({country: {iso_code}, city: {names: {en}}}). Only those fields are decoded.
 */
export function placeAt(
  b: Uint8Array,
  base: number,
  rec: number,
): { country: string | null; city: string | null } {
  let at = follow(b, base, base + rec);
  const head = header(b, at);
  if (head.type !== 7) return { country: null, city: null };
  at = head.next;
  let country: string | null = null, city: string | null = null;
  const valueAt = (p: number) => decodeValue(b, base, p).value;
  for (let i = 0; i < head.size; i++) {
    const k = follow(b, base, at), kh = header(b, k);
    at = next(b, base, at);
    if (kh.type === 2 && bytesEqual(b, kh.next, kh.size, KEY_COUNTRY_CODE)) country = text(valueAt(at));
    else if (kh.type === 2 && bytesEqual(b, kh.next, kh.size, KEY_CITY)) {
      const v = valueAt(at);
      city = typeof v === "string" ? text(v) : text(((v as Obj)?.names as Obj)?.en);
    } else if (kh.type === 2 && country === null && bytesEqual(b, kh.next, kh.size, KEY_COUNTRY)) {
      const v = valueAt(at) as Obj;
      if (v && typeof v === "object") country = text(v.iso_code);
    }
    at = next(b, base, at);
  }
  return { country: country ? country.toUpperCase() : null, city };
}

/**
 * Where a flat record's country_code and city strings lie in the file: out = [countryAt, countryLength,
 * cityAt, cityLength], -1 for a missing field. False when the record is not flat (MaxMind-style nesting):
 * use placeAt for those. Lets the caller recognise a place it has seen without making strings.
 */
export function placeSpans(b: Uint8Array, base: number, rec: number, out: Int32Array): boolean {
  let at = follow(b, base, base + rec);
  const head = header(b, at);
  if (head.type !== 7) return false;
  at = head.next;
  out.fill(-1);
  for (let i = 0; i < head.size; i++) {
    const k = follow(b, base, at), kh = header(b, k);
    at = next(b, base, at);
    if (kh.type !== 2) return false;
    const slot = bytesEqual(b, kh.next, kh.size, KEY_COUNTRY_CODE)
      ? 0
      : bytesEqual(b, kh.next, kh.size, KEY_CITY)
      ? 2
      : -1;
    if (slot < 0 && bytesEqual(b, kh.next, kh.size, KEY_COUNTRY)) return false;
    if (slot >= 0) {
      const v = header(b, follow(b, base, at));
      if (v.type !== 2) return false;
      out[slot] = v.next, out[slot + 1] = v.size;
    }
    at = next(b, base, at);
  }
  return true;
}

/** Decodes a string the file holds at `at` (placeSpans' positions). */
export function stringIn(b: Uint8Array, at: number, size: number): string {
  return utf8(b, at, size);
}

type Obj = { [k: string]: MmdbValue };
const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);

function bytesEqual(b: Uint8Array, at: number, size: number, want: Uint8Array): boolean {
  if (size !== want.length) return false;
  for (let i = 0; i < size; i++) if (b[at + i] !== want[i]) return false;
  return true;
}

/** Where the value at `at` really is (through one pointer). */
function follow(b: Uint8Array, base: number, at: number): number {
  const ctrl = b[at];
  if (ctrl >> 5 !== 1) return at;
  const ss = (ctrl >> 3) & 3, v = ctrl & 7, p = at + 1;
  if (ss === 0) return base + ((v << 8) | b[p]);
  if (ss === 1) return base + ((v << 16) | (b[p] << 8) | b[p + 1]) + 2048;
  if (ss === 2) return base + ((v << 24) | (b[p] << 16) | (b[p + 1] << 8) | b[p + 2]) + 526336;
  return base + (((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0);
}

function header(b: Uint8Array, at: number): { type: number; size: number; next: number } {
  const ctrl = b[at++];
  let type = ctrl >> 5;
  if (type === 0) type = 7 + b[at++];
  let size = ctrl & 31;
  if (size === 29) size = 29 + b[at++];
  else if (size === 30) size = 285 + ((b[at] << 8) | b[at + 1]), at += 2;
  else if (size === 31) size = 65821 + ((b[at] << 16) | (b[at + 1] << 8) | b[at + 2]), at += 3;
  return { type, size, next: at };
}

/** Where the value after the one at `at` starts, without decoding it. */
function next(b: Uint8Array, base: number, at: number): number {
  if (b[at] >> 5 === 1) return at + ((b[at] >> 3) & 3) + 2;
  const h = header(b, at);
  switch (h.type) {
    case 7:
    case 11: {
      let p = h.next;
      const items = h.type === 7 ? h.size * 2 : h.size;
      for (let i = 0; i < items; i++) p = next(b, base, p);
      return p;
    }
    case 3:
      return h.next + 8;
    case 15:
      return h.next + 4;
    case 14:
      return h.next;
    default:
      return h.next + h.size;
  }
}
