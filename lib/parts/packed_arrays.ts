/**
 * One JSON header and typed arrays in one buffer, each array starting 8-byte aligned so it is read in place:
 * the layout the per-part tables use (event rollups' sections, hit rollups, Web Vitals and property tables;
 * they deflate and chunk it themselves). Layout: the header's byte length (uint32, little-endian), the
 * header, then each array padded to a multiple of 8 bytes.
 */

import { createInflateRaw, deflateRawSync, inflateRawSync } from "node:zlib";
import { letGo } from "../working_memory.ts";

/** A typed-array constructor: `new T(buffer, byteOffset, length)`. */
export type ArrayKind = { new (b: ArrayBuffer, o: number, n: number): unknown; BYTES_PER_ELEMENT: number };

const align = (n: number) => Math.ceil(n / 8) * 8;

export function packArrays(header: unknown, arrays: ArrayBufferView[]): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header));
  let size = align(4 + h.length);
  for (const a of arrays) size += align(a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, h.length, true);
  out.set(h, 4);
  let o = align(4 + h.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
    o += align(a.byteLength);
  }
  return out;
}

/**
 * The header of packed bytes and a reader of their arrays in stored order (`next(T, n)`: the next n elements
 * as a T). The arrays are views on a copy of `bytes`, or with `inPlace` on `bytes`' own buffer when they start
 * aligned (an inflate's one-step output does; else a copy).
 */
export function unpackArrays<H>(
  bytes: Uint8Array,
  inPlace = false,
): { header: H; next: <T>(T: ArrayKind, n: number) => T } {
  const aligned = inPlace && bytes.byteOffset % 8 === 0;
  const buf = aligned
    ? bytes.buffer as ArrayBuffer
    : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const start = aligned ? bytes.byteOffset : 0;
  const len = new DataView(buf, start).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, start + 4, len))) as H;
  let o = start + align(4 + len);
  const next = <T>(T: ArrayKind, n: number): T => {
    const a = new T(buf, o, n);
    o += align(n * T.BYTES_PER_ELEMENT);
    return a as T;
  };
  return { header, next };
}

/**
 * Per kind of section, what its outputs measured inflated over stored (a moving mean): the next one's output
 * size is guessed from it, so zlib writes it in one chunk instead of 16 KB chunks joined after (at 10M events
 * a cold overview inflated ~3,500 sections, ~67 MB, most in four or more chunks). Kinds are narrow (a field's
 * sets, not all sets): one guess for sets of every field allocated five times their size.
 */
const ratios = new Map<string, number>();
/** A guess past this many times the stored size is not made (a few all-zero columns deflate 1000 to 1). */
const MAX_RATIO = 24;

/**
 * The inflated size of stored bytes where it is known: recorded by `deflated` when a writer makes them, and by
 * a reader that has it from what it read (`knowRawSize`: a rollup entry lists each section's). `inflateBytes`
 * then writes one chunk of exactly that size. A size guessed from the kind of section was off often enough
 * that at 10M events a cold overview allocated 85 MB for 65 MB of output and copied 2,800 of its 3,400
 * outputs to size; with the sizes known, the process's resident set after that ask was ~40 MB lower.
 */
const rawSizes = new WeakMap<Uint8Array, number>();

/** Bytes deflated (deflate-raw), their inflated size recorded (`rawSizeOf`). */
export function deflated(bytes: Uint8Array): Uint8Array {
  const out = deflateRawSync(bytes);
  rawSizes.set(out, bytes.length);
  return out;
}

/** The inflated size of stored bytes, when recorded (see `rawSizes`). */
export const rawSizeOf = (stored: Uint8Array): number | undefined => rawSizes.get(stored);

/** Records the inflated size of stored bytes read back (undefined: unknown, nothing recorded). */
export function knowRawSize<T extends Uint8Array>(stored: T, raw: number | undefined): T {
  if (raw !== undefined) rawSizes.set(stored, raw);
  return stored;
}

/**
 * Inflated deflate-raw bytes, not copied: with `raw`, the inflated size when known (given, or recorded:
 * `rawSizes`), they are written into a buffer of exactly that size (`inflateInto`); else `inflateRawSync`'s
 * own buffer (its output starts a buffer of its own, so aligned), where with `kind` (sections alike inflate
 * alike) the size is guessed from the kind's ratio so far (a guess too small costs a second chunk, one too
 * large a copy to size). Wrapping the output in
 * `new Uint8Array(...)` copied it, and `unpackArrays` without `inPlace` copied it again: a question decoding a
 * month of rollup sections made each section's bytes three or four times (at 10M events ~80 MB of sections
 * became ~300 MB of short-lived buffers).
 */
export function inflateBytes(stored: Uint8Array, raw?: number, kind?: string): Uint8Array<ArrayBuffer> {
  raw ??= rawSizes.get(stored);
  const own = raw ? inflateInto(stored, raw) : undefined;
  if (own) return own;
  // one byte more than the output: a chunk filled exactly makes zlib start another of the same size
  let chunk = raw ? raw + 1 : 0;
  const ratio = kind ? ratios.get(kind) : undefined;
  if (!chunk && ratio !== undefined) chunk = Math.ceil(stored.length * ratio * 1.15) + 1024;
  const out: Uint8Array = inflateRawSync(stored, chunk ? { chunkSize: Math.max(chunk, 64) } : {});
  if (kind && !raw && stored.length >= 256) {
    const r = Math.min(MAX_RATIO, out.length / stored.length);
    ratios.set(kind, ratio === undefined ? r : ratio * 0.75 + r * 0.25);
  }
  // a small output is a view on a 16 KB chunk or on a shared pool: copied to its size, or a kept section
  // of 1 KB would hold 16 KB (measured: 214 MB more held after a month's pages question); so is one on a
  // chunk guessed much too large
  // (`new Uint8Array(out)` copies; a Buffer's own `slice` would make a view)
  if (out.byteOffset !== 0 || out.buffer.byteLength - out.byteLength > out.byteLength / 8) {
    return new Uint8Array(out);
  }
  return new Uint8Array(out.buffer as ArrayBuffer, 0, out.byteLength);
}

/**
 * One raw-inflate handle, reset and reused for every section whose inflated size is known, writing into a
 * buffer of exactly that size. `inflateRawSync` makes a stream object, its state and a handle per call: at 10M
 * events a cold overview's ~3,400 small sections cost ~80-100 ms more of the main thread that way in a fresh
 * process. The handle is node:zlib's own (`_handle.writeSync`, `_writeState`: not public API), so where it is
 * not there, or a section does not fill its buffer exactly with all its input taken, or it throws,
 * `inflateRawSync` answers instead (its errors and checks as ever); a throw makes a new handle next time.
 */
type RawHandle = {
  onerror: (message: string) => void;
  reset(): void;
  writeSync(
    flush: number,
    i: Uint8Array,
    io: number,
    il: number,
    o: Uint8Array,
    oo: number,
    ol: number,
  ): void;
};
let handle: { h: RawHandle; state: Uint32Array; failed: boolean } | null | undefined;
const Z_FINISH = 4;

function rawHandle(): { h: RawHandle; state: Uint32Array; failed: boolean } | null {
  if (handle !== undefined) return handle;
  const z = createInflateRaw() as unknown as { _handle?: Partial<RawHandle>; _writeState?: Uint32Array };
  const h = z._handle, state = z._writeState;
  const ok = typeof h?.writeSync === "function" && typeof h.reset === "function" &&
    state instanceof Uint32Array;
  if (!ok) return handle = null;
  const made = { h: h as RawHandle, state, failed: false };
  // zlib reports broken bytes here (the stream's own reporter would emit an error no one listens to)
  made.h.onerror = () => made.failed = true;
  return handle = made;
}

/** `stored` inflated into a buffer of its own of `raw` bytes by the reused handle; undefined: use zlib's call. */
function inflateInto(stored: Uint8Array, raw: number): Uint8Array<ArrayBuffer> | undefined {
  const z = rawHandle();
  if (!z) return undefined;
  const out = new Uint8Array(raw);
  try {
    z.h.reset();
    z.h.writeSync(Z_FINISH, stored, 0, stored.length, out, 0, raw);
  } catch {
    z.failed = true;
  }
  if (z.failed) {
    handle = undefined;
    return undefined;
  }
  // state: [output space left, input left]; both 0, else the size recorded was not this section's (a stream
  // cut exactly before its end mark would pass: the bytes are this store's own, written whole)
  return z.state[0] === 0 && z.state[1] === 0 ? out : undefined;
}

/**
 * Frees bytes nothing will read again at once, not at the collector's next full collection: their buffer is
 * detached (`transfer(0)`), and the memory goes back to the allocator for the next section to reuse. For
 * bytes a reader alone holds: a section's stored bytes once inflated (what they decode to is a new buffer),
 * an inflated section once copied out. V8 frees a buffer that outlived two young collections only at a full
 * one, so at 10M events a cold question's ~90 MB of read and inflated sections waited as fresh memory: 500
 * buffers of 1 MB made and dropped took 1,256 ms and 100 MB, released 34 ms and 32 MB. A view on part of a
 * buffer (another view may share it) is left.
 */
export function release(bytes: Uint8Array | null | undefined): void {
  if (!bytes || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) return;
  if (bytes.buffer instanceof ArrayBuffer && !bytes.buffer.detached) {
    // (a question that held it holds it no more: working_memory.ts)
    letGo(bytes.buffer);
    bytes.buffer.transfer(0);
  }
}

/**
 * Frees the whole buffer under `view` at once (as `release`): a decoded section's, which an `inflateArrays`
 * decode's arrays all share, or any array a reader made for itself. Only for a buffer no kept thing views:
 * every array on it is detached (length 0) after. One already freed, or empty (may be a constant shared by
 * many), is left.
 */
export function releaseDecoded(view: ArrayBufferView | null | undefined): void {
  const b = view?.buffer;
  if (b instanceof ArrayBuffer && !b.detached && b.byteLength) release(new Uint8Array(b));
}

/** `unpackArrays` over deflated packed arrays, inflated once and read in place (see `inflateBytes`). */
export function inflateArrays<H>(
  stored: Uint8Array,
  raw?: number,
  kind?: string,
): { header: H; next: <T>(T: ArrayKind, n: number) => T } {
  return unpackArrays<H>(inflateBytes(stored, raw, kind), true);
}
