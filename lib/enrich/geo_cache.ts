/**
 * The start-up cache of the geo indexes: one file holding a JSON header (strings, shapes) and the typed
 * arrays' bytes, 8-byte aligned, so that loading is one read and the arrays are views into it, no copies.
 * A cache names its sources (path, size, modification time); a different source set is a different file.
 */
const MAGIC = "GEOIDX03"; // part of every cache name: a new layout never reads an old file
const TYPES = { Uint8Array, Uint16Array, Uint32Array, Int32Array } as const;
type TypeName = keyof typeof TYPES;
type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array;

export interface SourceId {
  kind: string;
  path: string;
  size: number;
  mtime: number;
}

export async function sourceIds(kind: string, paths: string[]): Promise<SourceId[]> {
  return await Promise.all(paths.map(async (path) => {
    const st = await Deno.stat(path);
    return { kind, path, size: st.size, mtime: st.mtime?.getTime() ?? 0 };
  }));
}

/** The cache file for these sources inside `dir`. */
export async function cacheFile(dir: string, sources: SourceId[]): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(JSON.stringify([MAGIC, sources])),
  );
  const hex = [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${dir}/geo-${hex}.bin`;
}

function isTyped(v: unknown): v is Typed {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/** `value` with every typed array swapped for a reference into the data part. */
export function encodeCache(sources: SourceId[], value: unknown): Uint8Array {
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

/** The value stored by encodeCache, its arrays viewing `bytes`; null if the file is not a cache of ours. */
export function decodeCache(bytes: Uint8Array): { sources: SourceId[]; value: unknown } | null {
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) return null;
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice(); // views need aligned offsets
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  const dataStart = align(16 + headerLength);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength)), (_k, v) => {
    if (!v || typeof v !== "object" || typeof v.$array !== "number") return v;
    const Type = TYPES[v.type as TypeName];
    if (!Type) throw new Error(`geo cache: unknown array type ${v.type}`);
    const at = dataStart + v.$array;
    if (at + v.length * Type.BYTES_PER_ELEMENT > bytes.length) throw new Error("geo cache: truncated");
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
    if (n === null) throw new Error(`geo cache: ${path} shrank while read`);
    at += n;
  }
  return out;
}

/** Reads a cache; null when absent, unreadable or not for exactly these sources. */
export function readCache(file: string, sources: SourceId[]): unknown | null {
  try {
    const got = decodeCache(readWhole(file));
    return got && JSON.stringify(got.sources) === JSON.stringify(sources) ? got.value : null;
  } catch {
    return null;
  }
}

/** Writes atomically (temp file, then rename) so a concurrent reader never sees half a file. */
export async function writeCache(file: string, sources: SourceId[], value: unknown): Promise<void> {
  const dir = file.slice(0, file.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(tmp, encodeCache(sources, value));
    await Deno.rename(tmp, file);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}
