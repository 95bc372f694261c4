/**
 * Batch ⇄ bytes. Columns are laid out one after another (8-byte aligned) and compressed with
 * CompressionStream (deflate-raw) in three segments: event ids, columns no question reads, and the rest.
 * One stream per segment keeps decoding cheap, and a query decompresses only the last.
 * A string column is [u32 dict byte length][dict JSON][pad][codes]; a number column is its Float64 bytes.
 */
import type { Batch, Column } from "./columns.ts";

export interface ColumnEntry {
  name: string;
  kind: "str" | "num";
  /** the dictionary is packed UTF-8 ([u32 count][u32 offsets][bytes]) instead of JSON */
  packed?: boolean;
  width: 1 | 2 | 4 | 8;
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

const FORMAT = "deflate-raw";

/**
 * Columns no question reads (kept for merges and completeness): they get their own segment, so a query
 * never decompresses them. Event ids are apart too (cleanup after a crash, the hit verification join).
 */
export const COLD_COLUMNS = new Set(["ctx", "fp", "dts", "user", "screen", "as_org", "ua"]);

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}
export const compress = (b: Uint8Array) => pipe(b, new CompressionStream(FORMAT));
export const decompress = (b: Uint8Array) => pipe(b, new DecompressionStream(FORMAT));

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
  return { offsets, bytes: block.slice(4 + 4 * (count + 1)) };
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const pad8 = (n: number) => (8 - (n % 8)) % 8;

function columnBytes(c: Column, packed = false): { bytes: Uint8Array; width: ColumnEntry["width"] } {
  if (c.kind === "num") {
    return { bytes: new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength), width: 8 };
  }
  const dict = packed ? packDict(c.dict) : enc.encode(JSON.stringify(c.dict));
  const head = 4 + dict.length;
  const pad = (4 - (head % 4)) % 4;
  const out = new Uint8Array(head + pad + c.codes.byteLength);
  new DataView(out.buffer).setUint32(0, dict.length, true);
  out.set(dict, 4);
  out.set(new Uint8Array(c.codes.buffer, c.codes.byteOffset, c.codes.byteLength), head + pad);
  return { bytes: out, width: c.codes.BYTES_PER_ELEMENT as 1 | 2 | 4 };
}

export async function encodeBatch(b: Batch): Promise<EncodedBatch> {
  const names = Object.keys(b.cols).sort();
  const groups = [
    names.filter((n) => n === "id"),
    names.filter((n) => COLD_COLUMNS.has(n)),
    names.filter((n) => n !== "id" && !COLD_COLUMNS.has(n)),
  ].filter((g) => g.length);
  const columns: ColumnEntry[] = [];
  const segments: Uint8Array[] = [];
  let off = 0;
  for (const group of groups) {
    const raws = group.map((name) => ({
      name,
      packed: PACKED.has(name) && b.cols[name].kind === "str",
      ...columnBytes(b.cols[name], PACKED.has(name)),
    }));
    const size = raws.reduce((s, r) => s + r.bytes.length + pad8(r.bytes.length), 0);
    const raw = new Uint8Array(size);
    const entries: ColumnEntry[] = [];
    let at = 0;
    for (const r of raws) {
      raw.set(r.bytes, at);
      entries.push({
        name: r.name,
        kind: b.cols[r.name].kind,
        width: r.width,
        off: 0,
        len: 0,
        at,
        bytes: r.bytes.length,
        ...(r.packed ? { packed: true } : {}),
      });
      at += r.bytes.length + pad8(r.bytes.length);
    }
    const squeezed = await compress(raw);
    for (const e of entries) Object.assign(e, { off, len: squeezed.length });
    columns.push(...entries);
    segments.push(squeezed);
    off += squeezed.length;
  }
  const blob = new Uint8Array(off);
  let at = 0;
  for (const s of segments) {
    blob.set(s, at);
    at += s.length;
  }
  return { n: b.n, columns, blob };
}

/** A column copied out of its decompressed segment, so the segment can be freed after decoding. */
function decodeColumn(entry: ColumnEntry, n: number, seg: Uint8Array): Column {
  const raw = seg.subarray(entry.at, entry.at + entry.bytes); // 8-byte aligned inside the segment
  if (entry.kind === "num") {
    return { kind: "num", values: new Float64Array(raw.buffer, raw.byteOffset, n).slice() };
  }
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const dictLen = dv.getUint32(0, true);
  const head = 4 + dictLen;
  const start = raw.byteOffset + head + ((4 - (head % 4)) % 4);
  const codes = entry.width === 1
    ? new Uint8Array(raw.buffer, start, n).slice()
    : entry.width === 2
    ? new Uint16Array(raw.buffer, start, n).slice()
    : new Uint32Array(raw.buffer, start, n).slice();
  // the dictionary is turned into strings on first use: many columns are never read by a given question
  const dictBytes = raw.slice(4, 4 + dictLen);
  const packed = entry.packed ? unpackDict(dictBytes) : undefined;
  let dict: string[] | undefined;
  const col = { kind: "str", codes, dictBytes: dictLen, packed } as Column;
  Object.defineProperty(col, "dict", {
    enumerable: true,
    get: () =>
      dict ??= packed
        ? Array.from(
          { length: packed.offsets.length - 1 },
          (_, k) => dec.decode(packed.bytes.subarray(packed.offsets[k], packed.offsets[k + 1])),
        )
        : JSON.parse(dec.decode(dictBytes)) as string[],
  });
  return col;
}

/** Decodes the named columns (all when `only` is omitted), decompressing each needed segment once. */
export async function decodeBatch(
  e: { n: number; columns: ColumnEntry[] },
  blob: Uint8Array,
  only?: (name: string) => boolean,
): Promise<Batch> {
  const wanted = e.columns.filter((c) => !only || only(c.name));
  const segs = new Map<number, Promise<Uint8Array>>();
  for (const c of wanted) {
    if (!segs.has(c.off)) segs.set(c.off, decompress(blob.subarray(c.off, c.off + c.len)));
  }
  const cols: Batch["cols"] = {};
  for (const c of wanted) cols[c.name] = decodeColumn(c, e.n, await segs.get(c.off)!);
  return { n: e.n, cols };
}
