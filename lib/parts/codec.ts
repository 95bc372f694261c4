/**
 * Batch ⇄ bytes. Each column is compressed on its own (deflate-raw), hot columns first, then columns no
 * question reads, then event ids: a query reads only the chunks of the columns it may need and inflates a
 * column the first time it is touched (most questions touch a third of them). Whole numbers are stored as
 * u32 offsets from the column's minimum when they fit (times, sequence numbers), else as Float64.
 * A string column is [u32 dict byte length][dict][pad][codes]. Parts written before this layout (several
 * columns per compressed segment) still decode.
 */
import { deflateRawSync } from "node:zlib";
import { inflateBytes, release } from "./packed_arrays.ts";
import type { Batch, Column, StrCol } from "./columns.ts";
import { noTurns, type Turn } from "../turns.ts";

export interface ColumnEntry {
  name: string;
  kind: "str" | "num";
  /** the dictionary is packed UTF-8 ([u32 count][u32 offsets][bytes]) instead of JSON */
  packed?: boolean;
  width: 1 | 2 | 4 | 8;
  /** number columns stored as u32 offsets: value = base + offset */
  base?: number;
  /** stored as is, not deflated (random ids and times barely compress; inflating them cost most of a read) */
  stored?: boolean;
  /** the compressed segment holding the column, as a byte range of the part blob */
  off: number;
  len: number;
  /** where the column sits inside the decompressed segment */
  at: number;
  bytes: number;
}

export interface EncodedBatch {
  n: number;
  columns: ColumnEntry[];
  blob: Uint8Array;
}

/**
 * Columns no question reads (kept for merges and completeness): stored after the hot ones, so a query never
 * reads their chunks. Event ids come last (cleanup after a crash, the hit verification join).
 */
export const COLD_COLUMNS = new Set(["ctx", "fp", "dts", "user", "screen", "as_org", "ua"]);

/** A column whose deflated size is above this share of its size is stored as is. */
const STORE_ABOVE = 0.4;

const plain = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
export const compress = (b: Uint8Array): Promise<Uint8Array> => Promise.resolve(plain(deflateRawSync(b)));
/** Synchronous: a column inflates when a question first touches it (`raw`: its inflated size, when known). */
export const inflate = (b: Uint8Array, raw?: number): Uint8Array => {
  const out = inflateBytes(b, raw);
  return out.byteOffset % 8 === 0 ? out : out.slice(); // typed views over it need 8-byte alignment
};
export const decompress = (b: Uint8Array): Promise<Uint8Array> => Promise.resolve(inflate(b));

/** Dictionaries of ids (unique strings, interned by their bytes at query time) are packed, not JSON. */
const PACKED = new Set(["anon", "session"]);

function packDict(dict: string[]): Uint8Array {
  const parts = dict.map((d) => enc.encode(d));
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(4 + 4 * (dict.length + 1) + total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, dict.length, true);
  let at = 0;
  parts.forEach((p, k) => {
    dv.setUint32(4 + 4 * k, at, true);
    out.set(p, 4 + 4 * (dict.length + 1) + at);
    at += p.length;
  });
  dv.setUint32(4 + 4 * dict.length, at, true);
  return out;
}

function unpackDict(block: Uint8Array): { offsets: Uint32Array; bytes: Uint8Array } {
  const count = new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(0, true);
  const offsets = new Uint32Array(count + 1);
  const dv = new DataView(block.buffer, block.byteOffset + 4, 4 * (count + 1));
  for (let k = 0; k <= count; k++) offsets[k] = dv.getUint32(4 * k, true);
  return { offsets, bytes: block.subarray(4 + 4 * (count + 1)) };
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Whole numbers within 2^32 of their minimum: their u32 offsets and the minimum; else null. */
function asOffsets(v: Float64Array): { base: number; offsets: Uint32Array } | null {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isInteger(x)) return null; // NaN (null) and fractions stay Float64
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (!v.length || hi - lo > 0xffffffff || !Number.isSafeInteger(lo) || !Number.isSafeInteger(hi)) {
    return null;
  }
  const offsets = new Uint32Array(v.length);
  for (let i = 0; i < v.length; i++) offsets[i] = v[i] - lo;
  return { base: lo, offsets };
}

/** Characters of JSON a dictionary is written in at a time (see `jsonDictColumn`). */
const JSON_RUN = 1 << 16;
/** Characters of a dictionary's JSON made between two turns (encodeBatch `turn`): ~25 ms on a slow host. */
const JSON_TURN = 1 << 19;

/** Runs of entries [from, to) of about JSON_RUN characters each. */
function jsonRuns(dict: string[]): number[] {
  const cuts = [0];
  for (let i = 0; i < dict.length;) {
    let chars = dict[i++].length;
    while (i < dict.length && chars < JSON_RUN) chars += dict[i++].length;
    cuts.push(i);
  }
  return cuts;
}

/** The UTF-8 length of `s`, as TextEncoder writes it (a lone surrogate is U+FFFD, 3 bytes). */
function utf8Length(s: string): number {
  let n = s.length; // one byte each, plus what each code unit needs more
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) continue;
    if (u < 0x800) n += 1;
    else if (u >= 0xd800 && u < 0xdc00 && i + 1 < s.length) {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v < 0xe000) (n += 2, i++); // a pair: 4 bytes for 2 units
      else n += 2;
    } else n += 2;
  }
  return n;
}

/**
 * A JSON string column, [u32 dict byte length][JSON dict][pad][codes], byte for byte as
 * `enc.encode(JSON.stringify(dict))` would write it, without making that string or a copy of its bytes:
 * the entries' JSON is made a run at a time (twice: measured, then written into the column in place). A
 * dictionary's JSON is as long as all its entries (a leftover-properties column of 680 rows of 90
 * 190-character names: 12.3M UTF-16 characters, 35 MB of UTF-8): one string of it, then its bytes, then
 * their copy into the column made three large fresh allocations, each paid in page faults and GC.
 */
async function jsonDictColumn(dict: string[], codes: Uint8Array, turn: Turn): Promise<Uint8Array> {
  const cuts = jsonRuns(dict);
  let made = 0; // characters since the last turn: a large dictionary gives the loop turns as it goes
  const run = async (k: number) => {
    const s = JSON.stringify(dict.slice(cuts[k], cuts[k + 1])); // "[a,b]"
    if ((made += s.length) >= JSON_TURN) (made = 0, await turn());
    return s;
  };
  let len = 2 + Math.max(0, cuts.length - 2); // brackets, commas between runs
  for (let k = 0; k + 1 < cuts.length; k++) len += utf8Length(await run(k)) - 2;
  const head = 4 + len;
  const pad = (4 - (head % 4)) % 4;
  const out = new Uint8Array(head + pad + codes.byteLength);
  new DataView(out.buffer).setUint32(0, len, true);
  let at = 4;
  out[at++] = 0x5b; // [
  for (let k = 0; k + 1 < cuts.length; k++) {
    if (k) out[at++] = 0x2c; // ,
    const s = await run(k);
    at += enc.encodeInto(s.slice(1, -1), out.subarray(at, head - 1)).written;
  }
  out[at++] = 0x5d; // ]
  if (at !== head) throw new Error(`string column: dictionary of ${len} bytes written as ${at - 4}`);
  out.set(codes, head + pad);
  return out;
}

async function columnBytes(
  c: Column,
  packed: boolean,
  turn: Turn,
): Promise<{ bytes: Uint8Array; width: ColumnEntry["width"]; base?: number }> {
  if (c.kind === "num") {
    const o = asOffsets(c.values);
    if (o) return { bytes: new Uint8Array(o.offsets.buffer), width: 4, base: o.base };
    return { bytes: new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength), width: 8 };
  }
  const codes = new Uint8Array(c.codes.buffer, c.codes.byteOffset, c.codes.byteLength);
  if (!packed) {
    return {
      bytes: await jsonDictColumn(c.dict, codes, turn),
      width: c.codes.BYTES_PER_ELEMENT as 1 | 2 | 4,
    };
  }
  const dict = packDict(c.dict);
  const head = 4 + dict.length;
  const pad = (4 - (head % 4)) % 4;
  const out = new Uint8Array(head + pad + c.codes.byteLength);
  new DataView(out.buffer).setUint32(0, dict.length, true);
  out.set(dict, 4);
  out.set(codes, head + pad);
  return { bytes: out, width: c.codes.BYTES_PER_ELEMENT as 1 | 2 | 4 };
}

/**
 * Encodes the batch's columns; `turn` gives the event loop a turn after each column and, inside a string
 * column whose dictionary's JSON is long, every JSON_TURN characters of it (compaction).
 */
export async function encodeBatch(b: Batch, turn: Turn = noTurns): Promise<EncodedBatch> {
  const names = Object.keys(b.cols).sort();
  const order = [
    ...names.filter((n) => n !== "id" && !COLD_COLUMNS.has(n)),
    ...names.filter((n) => COLD_COLUMNS.has(n)),
    ...names.filter((n) => n === "id"),
  ];
  const columns: ColumnEntry[] = [];
  const squeezed: Uint8Array[] = [];
  let off = 0;
  for (const name of order) {
    const col = b.cols[name];
    const packed = PACKED.has(name) && col.kind === "str";
    const raw = await columnBytes(col, packed, turn);
    const deflated = plain(deflateRawSync(raw.bytes));
    const hot = name !== "id" && !COLD_COLUMNS.has(name); // only columns queries read are worth the space
    const stored = hot && deflated.length > STORE_ABOVE * raw.bytes.length;
    const z = stored ? raw.bytes : deflated;
    const pad = (8 - (off % 8)) % 8; // stored columns are read in place: keep every column 8-byte aligned
    if (pad) squeezed.push(new Uint8Array(pad));
    off += pad;
    columns.push({
      name,
      kind: col.kind,
      width: raw.width,
      off,
      len: z.length,
      at: 0,
      bytes: raw.bytes.length,
      ...(packed ? { packed: true } : {}),
      ...(raw.base !== undefined ? { base: raw.base } : {}),
      ...(stored ? { stored: true } : {}),
    });
    squeezed.push(z);
    off += z.length;
    await turn();
  }
  const blob = new Uint8Array(off);
  let at = 0;
  for (const z of squeezed) {
    blob.set(z, at);
    at += z.length;
  }
  return { n: b.n, columns, blob };
}

/**
 * Gives a string column its `dict`, turned into strings from its packed or JSON bytes on first use (many
 * columns are never read by a given question); `dict` is used as it is when given.
 */
export function defineLazyDict(col: StrCol, dict?: string[]): void {
  const { packed, dictJson } = col;
  Object.defineProperty(col, "dict", {
    enumerable: true,
    get: () =>
      dict ??= packed
        ? Array.from(
          { length: packed.offsets.length - 1 },
          (_, k) => dec.decode(packed.bytes.subarray(packed.offsets[k], packed.offsets[k + 1])),
        )
        : JSON.parse(dec.decode(dictJson!)) as string[],
  });
}

/**
 * A column out of its inflated segment: views when the segment is the column's own, copies when it is
 * shared (older parts), so the segment can be freed.
 */
function decodeColumn(entry: ColumnEntry, n: number, seg: Uint8Array, own: boolean): Column {
  const raw = seg.subarray(entry.at, entry.at + entry.bytes); // 8-byte aligned inside the segment
  if (entry.kind === "num") {
    if (entry.base !== undefined) {
      const offsets = new Uint32Array(raw.buffer, raw.byteOffset, n), values = new Float64Array(n);
      for (let i = 0; i < n; i++) values[i] = entry.base + offsets[i];
      return { kind: "num", values };
    }
    const values = new Float64Array(raw.buffer, raw.byteOffset, n);
    return { kind: "num", values: own ? values : values.slice() };
  }
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const dictLen = dv.getUint32(0, true);
  const head = 4 + dictLen;
  const start = raw.byteOffset + head + ((4 - (head % 4)) % 4);
  const view = entry.width === 1
    ? new Uint8Array(raw.buffer, start, n)
    : entry.width === 2
    ? new Uint16Array(raw.buffer, start, n)
    : new Uint32Array(raw.buffer, start, n);
  const codes = own ? view : view.slice();
  // the dictionary is turned into strings on first use: many columns are never read by a given question
  const dictBytes = own ? raw.subarray(4, 4 + dictLen) : raw.slice(4, 4 + dictLen);
  const packed = entry.packed ? unpackDict(dictBytes) : undefined;
  const col = {
    kind: "str",
    codes,
    dictBytes: dictLen,
    packed,
    dictJson: packed ? undefined : dictBytes,
  } as StrCol;
  defineLazyDict(col);
  return col;
}

/** Columns decoded from a segment inflated for them alone (`decodeBatch`): nothing else views its buffer. */
const ownSegment = new WeakSet<Column>();

/**
 * Whether a decoded column's arrays sit on a buffer of its own (see `ownSegment`): a reader done with it may
 * let it go (packed_arrays.ts `release`). Not a column of a shared segment (older parts) nor one read in place.
 */
export const ownsSegment = (c: Column): boolean => ownSegment.has(c);

/** The stored bytes each unread column of a kept batch holds (decodeBatch `keep`), by the batch's columns. */
const unreadBytes = new WeakMap<Batch["cols"], Map<string, number>>();

/**
 * Bytes a decoded batch holds now: its read columns' arrays (a buffer counted once) and, when kept
 * (decodeBatch `keep`), the stored bytes each unread column holds. Reading a column here would decode it:
 * an unread column is told by its getter. Strings made from a dictionary live in the JS heap, not counted.
 */
export function batchBytes(b: Batch): number {
  const unread = unreadBytes.get(b.cols), seen = new Set<ArrayBufferLike>();
  let n = 0;
  const add = (a: ArrayBufferView | undefined) => {
    if (a && !seen.has(a.buffer)) (seen.add(a.buffer), n += a.buffer.byteLength);
  };
  for (const name of Object.keys(b.cols)) {
    const d = Object.getOwnPropertyDescriptor(b.cols, name)!;
    if (!("value" in d)) {
      n += unread?.get(name) ?? 0;
      continue;
    }
    const c = d.value as Column;
    if (c.kind === "num") add(c.values);
    else (add(c.codes), add(c.packed?.bytes), add(c.packed?.offsets), add(c.dictJson));
  }
  return n;
}

/**
 * The named columns (all when `only` is omitted). A column with a segment of its own inflates the first
 * time it is read; shared segments (older parts) are inflated once, right away. `blob` may be a range of
 * the part's bytes starting at byte `base` (see readRange), covering the wanted columns.
 *
 * `keep`: the batch is kept (a cache) and `blob` is let go by the caller once this returns. Each column not
 * yet read then holds a copy of its own stored bytes, freed once it is inflated, instead of every column
 * holding the whole blob: a kept batch held its part's whole stored range for as long as one column was
 * never read, the deflated bytes of the columns already inflated too (at 1M events, after an overview, ~6
 * MB of the ~37 MB a month's parts read).
 */
export function decodeBatch(
  e: { n: number; columns: ColumnEntry[] },
  blob: Uint8Array,
  only?: (name: string) => boolean,
  base = 0,
  keep = false,
): Promise<Batch> {
  const wanted = e.columns.filter((c) => !only || only(c.name));
  const sharing = new Map<number, number>();
  for (const c of e.columns) if (!c.stored) sharing.set(c.off, (sharing.get(c.off) ?? 0) + 1);
  const segment = (c: ColumnEntry) => blob.subarray(c.off - base, c.off - base + c.len);
  const shared = new Map<number, Uint8Array>();
  const cols: Batch["cols"] = {};
  const unread = new Map<string, number>();
  if (keep) unreadBytes.set(cols, unread);
  for (const c of wanted) {
    if (!c.stored && sharing.get(c.off)! > 1) {
      let seg = shared.get(c.off);
      if (!seg) shared.set(c.off, seg = inflate(segment(c)));
      cols[c.name] = decodeColumn(c, e.n, seg, false);
      continue;
    }
    // kept: a copy of its own (offset 0, so aligned), read in place if stored, freed once inflated
    const packed = keep ? segment(c).slice() : segment(c);
    if (keep) unread.set(c.name, packed.byteLength);
    // stored columns are read in place when aligned (parts keep them 8-byte aligned), else copied
    const bytes = () => {
      if (c.stored) return packed.byteOffset % 8 === 0 ? packed : packed.slice();
      const out = inflate(packed, c.at + c.bytes);
      if (keep) release(packed);
      return out;
    };
    Object.defineProperty(cols, c.name, {
      enumerable: true,
      configurable: true,
      get() {
        const col = decodeColumn(c, e.n, bytes(), true);
        unread.delete(c.name);
        if (!c.stored) {
          ownSegment.add(col);
        }
        Object.defineProperty(cols, c.name, {
          value: col,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        return col;
      },
    });
  }
  return Promise.resolve({ n: e.n, cols });
}

/** The byte range [from, to) of a part's blob that columns passing `only` occupy. */
export function columnRange(
  columns: ColumnEntry[],
  only: (name: string) => boolean,
): { from: number; to: number } {
  let from = Infinity, to = 0;
  for (const c of columns) {
    if (!only(c.name)) continue;
    from = Math.min(from, c.off);
    to = Math.max(to, c.off + c.len);
  }
  return from === Infinity ? { from: 0, to: 0 } : { from, to };
}
