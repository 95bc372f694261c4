/**
 * One prebuilt geo index in one file: a JSON header (strings, shapes) and the typed arrays' bytes, 8-byte
 * aligned, so that loading is one read and the arrays are views into it, no copies. The header names the
 * sources the index was built from.
 */
import type { SourceId } from "./geo_sources.ts";

export const MAGIC = "GEOIDX04"; // a new layout never reads an old file
const TYPES = { Uint8Array, Uint16Array, Uint32Array, Int32Array } as const;
type TypeName = keyof typeof TYPES;
type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array;

function isTyped(v: unknown): v is Typed {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/** `value` with every typed array swapped for a reference into the data part. */
export function encodeIndex(sources: SourceId[], value: unknown): Uint8Array {
  const arrays: Typed[] = [], offsets: number[] = [];
  let dataLength = 0; // offsets count from the start of the data part, after the header
  const json = JSON.stringify({ sources, value }, (_k, v) => {
    if (!isTyped(v)) return v;
    arrays.push(v), offsets.push(dataLength);
    dataLength = align(dataLength + v.byteLength);
    return { $array: offsets.at(-1), type: v.constructor.name, length: v.length };
  });
  const header = new TextEncoder().encode(json);
  const dataStart = align(16 + header.length);
  const out = new Uint8Array(dataStart + dataLength);
  out.set(new TextEncoder().encode(MAGIC));
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 16);
  arrays.forEach((a, i) =>
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), dataStart + offsets[i])
  );
  return out;
}

const align = (n: number) => Math.ceil(n / 8) * 8;

/** The value stored by encodeIndex, its arrays viewing `bytes`; null if the file is not an index of ours. */
export function decodeIndex(bytes: Uint8Array): { sources: SourceId[]; value: unknown } | null {
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return null;
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice(); // views need aligned offsets
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  const dataStart = align(16 + headerLength);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength)), (_k, v) => {
    if (!v || typeof v !== "object" || typeof v.$array !== "number") return v;
    const Type = TYPES[v.type as TypeName];
    if (!Type) throw new Error(`geo index: unknown array type ${v.type}`);
    const at = dataStart + v.$array;
    if (at + v.length * Type.BYTES_PER_ELEMENT > bytes.length) throw new Error("geo index: truncated");
    return new Type(bytes.buffer as ArrayBuffer, bytes.byteOffset + at, v.length);
  });
}

/**
 * The file in one buffer that V8 allocates at its final size: Deno.readFile's own buffering left
 * ~20 MB more resident after loading the indexes than this does.
 */
export function readWhole(path: string): Uint8Array {
  using f = Deno.openSync(path);
  const out = new Uint8Array(f.statSync().size);
  for (let at = 0; at < out.length;) {
    const n = f.readSync(out.subarray(at));
    if (n === null) throw new Error(`geo index: ${path} shrank while read`);
    at += n;
  }
  return out;
}

/** The sources named in an index file's header, without reading its arrays; null if not an index of ours. */
export function readIndexSources(path: string): SourceId[] | null {
  using f = Deno.openSync(path);
  const head = new Uint8Array(16);
  if (f.readSync(head) !== 16 || new TextDecoder().decode(head.subarray(0, 8)) !== MAGIC) return null;
  const header = new Uint8Array(new DataView(head.buffer).getUint32(8, true));
  for (let at = 0; at < header.length;) {
    const n = f.readSync(header.subarray(at));
    if (n === null) return null;
    at += n;
  }
  return JSON.parse(new TextDecoder().decode(header)).sources ?? null;
}
