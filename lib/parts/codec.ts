/**
 * Batch ⇄ bytes. Each column is compressed on its own (CompressionStream, deflate-raw) so a reader can
 * skip columns it does not need (event ids are only read when a part's raw keys must be cleaned up).
 * A string column is [u32 dict byte length][dict JSON][codes]; a number column is its Float64 bytes.
 */
import type { Batch, Column } from "./columns.ts";

export interface ColumnEntry {
  name: string;
  kind: "str" | "num";
  width: 1 | 2 | 4 | 8;
  off: number; // byte offset of the compressed segment inside the part blob
  len: number;
}

export interface EncodedBatch {
  n: number;
  columns: ColumnEntry[];
  blob: Uint8Array;
}

const FORMAT = "deflate-raw";

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}
export const compress = (b: Uint8Array) => pipe(b, new CompressionStream(FORMAT));
export const decompress = (b: Uint8Array) => pipe(b, new DecompressionStream(FORMAT));

const enc = new TextEncoder();
const dec = new TextDecoder();

function columnBytes(c: Column): { bytes: Uint8Array; width: ColumnEntry["width"] } {
  if (c.kind === "num") {
    return { bytes: new Uint8Array(c.values.buffer, c.values.byteOffset, c.values.byteLength), width: 8 };
  }
  const dict = enc.encode(JSON.stringify(c.dict));
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
  const segments = await Promise.all(names.map(async (name) => {
    const { bytes, width } = columnBytes(b.cols[name]);
    return { name, kind: b.cols[name].kind, width, data: await compress(bytes) };
  }));
  const total = segments.reduce((s, x) => s + x.data.length, 0);
  const blob = new Uint8Array(total);
  const columns: ColumnEntry[] = [];
  let off = 0;
  for (const s of segments) {
    blob.set(s.data, off);
    columns.push({ name: s.name, kind: s.kind, width: s.width, off, len: s.data.length });
    off += s.data.length;
  }
  return { n: b.n, columns, blob };
}

export async function decodeColumn(entry: ColumnEntry, n: number, blob: Uint8Array): Promise<Column> {
  const raw = await decompress(blob.subarray(entry.off, entry.off + entry.len));
  if (entry.kind === "num") return { kind: "num", values: new Float64Array(raw.buffer, raw.byteOffset, n) };
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const dictLen = dv.getUint32(0, true);
  const dict = JSON.parse(dec.decode(raw.subarray(4, 4 + dictLen))) as string[];
  const head = 4 + dictLen;
  const start = head + ((4 - (head % 4)) % 4);
  const buf = raw.slice(start, start + n * entry.width).buffer;
  const codes = entry.width === 1
    ? new Uint8Array(buf)
    : entry.width === 2
    ? new Uint16Array(buf)
    : new Uint32Array(buf);
  return { kind: "str", dict, codes };
}

/** Decodes the named columns (all when `only` is omitted). */
export async function decodeBatch(
  e: { n: number; columns: ColumnEntry[] },
  blob: Uint8Array,
  only?: (name: string) => boolean,
): Promise<Batch> {
  const wanted = e.columns.filter((c) => !only || only(c.name));
  const decoded = await Promise.all(wanted.map((c) => decodeColumn(c, e.n, blob)));
  const cols: Batch["cols"] = {};
  wanted.forEach((c, i) => (cols[c.name] = decoded[i]));
  return { n: e.n, cols };
}
