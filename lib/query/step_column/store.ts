/**
 * A part's step column on KV: one section per event type, each a JSON header (dictionaries, how its numbers
 * are kept) and its arrays in one aligned buffer (parts/packed_arrays.ts), deflated and chunked under
 * stepColumnKeys.chunk(part id, section × 10,000 + i). The entry { v, bytes, rows, secs } is written last, so
 * a column is there whole or not at all. Compaction writes it beside the part's other tables, deleting a part
 * deletes it, and older parts get one from lib/jobs/step_column_backfill.ts.
 *
 * The part's sessions are one more section (SESSIONS), read only by questions that tell sessions apart.
 */
import { holdArraysOf, letGo as workingLetGo } from "../../working_memory.ts";
import { Buffer } from "node:buffer";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { type ArrayKind, release } from "../../parts/packed_arrays.ts";
import type { Batch } from "../../parts/columns.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import type { EnvName } from "../../store/records.ts";
import { keys } from "../../store/keys.ts";
import { readMany } from "../../store/read_many.ts";
import { packSections, unpackSections } from "../section_index.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { buildStepColumn, type StepSection } from "./build.ts";

/** A column of another version is rebuilt by the backfill; questions stream those parts meanwhile. */
export const STEP_COLUMN_VERSION = 3;

/** KV keys of step columns (lib/store/keys.ts: an entry, its chunks beside it). */
export const stepColumnKeys = {
  entry: keys.stepColumn,
  chunk: keys.stepColumnChunk,
  chunks: keys.stepColumnChunks,
};

export interface StepColumnEntry {
  v: number;
  /** stored bytes of all sections */
  bytes: number;
  rows: number;
  /** per event type (secName), and SESSIONS for the part's sessions: section number, stored bytes, chunks, rows */
  secs: Record<string, [number, number, number, number]>;
  /** `secs` moved to chunks of its own when too long for the entry (section_index.ts) */
  index?: [number, number];
}

/** A section's name for an event type (null has one too). */
export const secName = (et: string | null): string => et ?? "\u0000null";

/** The section of the part's session table (read by questions that tell sessions apart). */
export const SESSIONS = "\u0000sessions";

/** Whether a section name is an event type's (null's included), not the session table. */
export const isTypeSection = (name: string): boolean => name !== SESSIONS;

const SEC_SPAN = 10_000;

interface Header {
  et: string | null;
  n: number;
  pages: (string | null)[];
  tps: (string | null)[];
  trs: (string | null)[];
  base: number;
  /** 1: kept as Int32 differences (else the Float64 values themselves) */
  tInt: 0 | 1;
  dtInt: 0 | 1;
  seqInt: 0 | 1;
  /** bytes of a page code: 2 or 4 */
  pageW: 2 | 4;
  /** rows with a kept batch place (ties) */
  ties: number;
}

const INT32 = (x: number) => Number.isInteger(x) && x >= -2147483648 && x <= 2147483647;

/**
 * A section's bytes. Within a visitor's run each number is kept as its difference from the row before
 * (receive time, device time's offset from it, sequence number, session), so a run's repeats cost little
 * once deflated; floats that are not whole, or differences past 32 bits, keep the values themselves.
 */
export function encodeSection(s: StepSection): Uint8Array {
  const n = s.n;
  let base = Infinity;
  for (let k = 0; k < n; k++) if (s.t[k] < base) base = s.t[k];
  if (!Number.isFinite(base)) base = 0;
  const dv = new Uint32Array(n), dses = new Int32Array(n);
  const dT = new Float64Array(n), dOff = new Float64Array(n), dSeq = new Float64Array(n);
  let tInt: 0 | 1 = 1, dtInt: 0 | 1 = 1, seqInt: 0 | 1 = 1, ties = 0;
  for (let k = 0; k < n; k++) {
    const same = k > 0 && s.vis[k] === s.vis[k - 1];
    dv[k] = k === 0 ? s.vis[0] : s.vis[k] - s.vis[k - 1];
    dses[k] = k === 0 ? s.ses[0] : s.ses[k] - s.ses[k - 1];
    dT[k] = s.t[k] - (same ? s.t[k - 1] : base);
    dOff[k] = s.dt[k] - s.t[k] - (same ? s.dt[k - 1] - s.t[k - 1] : 0);
    dSeq[k] = s.seq[k] - (same ? s.seq[k - 1] : 0);
    if (!INT32(dT[k]) || !Number.isInteger(s.t[k])) tInt = 0;
    if (!INT32(dOff[k]) || !Number.isInteger(s.dt[k])) dtInt = 0;
    if (!INT32(dSeq[k]) || !Number.isInteger(s.seq[k])) seqInt = 0;
    if (s.row[k] !== 0) ties++;
  }
  const tieAt = new Uint32Array(ties), tieRow = new Uint32Array(ties);
  for (let k = 0, j = 0; k < n; k++) {
    if (s.row[k] === 0) continue;
    tieAt[j] = k;
    tieRow[j++] = s.row[k];
  }
  const pageW = s.pages.length <= 65_536 ? 2 : 4;
  const header: Header = {
    et: s.et,
    n,
    pages: s.pages,
    tps: s.tps,
    trs: s.trs,
    base,
    tInt,
    dtInt,
    seqInt,
    pageW,
    ties,
  };
  const arrays: ArrayBufferView[] = [
    dv,
    // floats are kept as they are: a difference of floats added back need not give the same float
    tInt ? Int32Array.from(dT) : s.t,
    dtInt ? Int32Array.from(dOff) : s.dt,
    seqInt ? Int32Array.from(dSeq) : s.seq,
    pageW === 2
      ? (s.page instanceof Uint16Array ? s.page : Uint16Array.from(s.page))
      : Uint32Array.from(s.page),
    s.tp,
    s.tr,
    dses,
    tieAt,
    tieRow,
  ];
  return deflateEach(header, arrays);
}

export function decodeSection(stored: Stored): StepSection {
  const { header: h, next } = inflateEach<Header>(stored);
  const n = h.n;
  const dv = next<Uint32Array>(Uint32Array, n);
  const dT = h.tInt ? next<Int32Array>(Int32Array, n) : next<Float64Array>(Float64Array, n);
  const dOff = h.dtInt ? next<Int32Array>(Int32Array, n) : next<Float64Array>(Float64Array, n);
  const dSeq = h.seqInt ? next<Int32Array>(Int32Array, n) : next<Float64Array>(Float64Array, n);
  const pageIn = h.pageW === 2 ? next<Uint16Array>(Uint16Array, n) : next<Uint32Array>(Uint32Array, n);
  const tp = next<Uint16Array>(Uint16Array, n), tr = next<Uint8Array>(Uint8Array, n);
  const dses = next<Int32Array>(Int32Array, n);
  const tieAt = next<Uint32Array>(Uint32Array, h.ties), tieRow = next<Uint32Array>(Uint32Array, h.ties);
  // visitors and sessions summed in place over their differences' own inflated buffers (each a buffer of
  // its own: two arrays of 4 bytes a row less made per section, ~24 MB a cold funnel at 10M events)
  const vis = dv, ses = new Uint32Array(dses.buffer, dses.byteOffset, n);
  const t = h.tInt ? new Float64Array(n) : dT as Float64Array;
  const dt = h.dtInt ? new Float64Array(n) : dOff as Float64Array;
  const seq = h.seqInt ? new Float64Array(n) : dSeq as Float64Array;
  // visitors and sessions, then each order time in a loop of its own (one array kind each, the header's
  // flags read once)
  let v = 0, x = 0;
  for (let k = 0; k < n; k++) {
    vis[k] = v = k === 0 ? dv[0] : v + dv[k];
    const d = dses[k];
    ses[k] = x = k === 0 ? d : x + d;
  }
  if (h.tInt) deltaTimes(t, dT as Int32Array, vis, h.base);
  if (h.dtInt) deviceTimes(dt, dOff as Int32Array, t, vis);
  if (h.seqInt) numbers(seq, dSeq as Int32Array, vis);
  const row = new Uint32Array(n);
  for (let j = 0; j < h.ties; j++) row[tieAt[j]] = tieRow[j];
  return {
    et: h.et,
    n,
    pages: h.pages,
    tps: h.tps,
    trs: h.trs,
    vis,
    t,
    dt,
    seq,
    page: pageIn,
    tp,
    tr,
    row,
    ses,
    h1: new Uint32Array(0),
    h2: new Uint32Array(0),
  };
}

/** Receive times from their differences within a visitor's run (a row of the same visitor as the row before). */
function deltaTimes(t: Float64Array, dT: Int32Array, vis: Uint32Array, base: number) {
  for (let k = 0; k < t.length; k++) t[k] = (k > 0 && vis[k] === vis[k - 1] ? t[k - 1] : base) + dT[k];
}

/** Device times from their offsets' differences within a visitor's run. */
function deviceTimes(dt: Float64Array, dOff: Int32Array, t: Float64Array, vis: Uint32Array) {
  for (let k = 0; k < dt.length; k++) {
    dt[k] = t[k] + dOff[k] + (k > 0 && vis[k] === vis[k - 1] ? dt[k - 1] - t[k - 1] : 0);
  }
}

/** Sequence numbers from their differences within a visitor's run. */
function numbers(seq: Float64Array, dSeq: Int32Array, vis: Uint32Array) {
  for (let k = 0; k < seq.length; k++) seq[k] = dSeq[k] + (k > 0 && vis[k] === vis[k - 1] ? seq[k - 1] : 0);
}

/**
 * A JSON header and typed arrays, each deflated on its own (its own Huffman tables: deflated together, a
 * section's arrays took 12 bytes a row, apart 7-8): the pieces' count and byte lengths (uint32 each), then
 * the deflated header, then the deflated arrays.
 */
function deflateEach(header: unknown, arrays: ArrayBufferView[]): Uint8Array {
  const pieces = [
    deflateRawSync(new TextEncoder().encode(JSON.stringify(header))),
    ...arrays.map((a) => deflateRawSync(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))),
  ];
  const lead = new Uint32Array(1 + pieces.length);
  lead[0] = pieces.length;
  pieces.forEach((p, i) => (lead[i + 1] = p.length));
  const out = new Uint8Array(lead.byteLength + pieces.reduce((n, p) => n + p.length, 0));
  out.set(new Uint8Array(lead.buffer));
  let o = lead.byteLength;
  for (const p of pieces) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * A section's stored bytes: one buffer, or its chunks as read from KV in order (each CHUNK_BYTES long but
 * the last), read where they lie instead of joined into one buffer first (that copy was as many bytes as
 * the reads: 34-47 MB a cold funnel or paths question at 10M events).
 */
export type Stored = Uint8Array | readonly Uint8Array[];

/**
 * Bytes o..o+n of stored bytes: a view when they lie in one chunk (most pieces do), else a copy of those
 * bytes alone. Bytes past the stored ones fail (a chunk cut short).
 */
export function storedRange(stored: Stored, o: number, n: number): Uint8Array {
  const chunks = stored instanceof Uint8Array ? [stored] : stored;
  const size = stored instanceof Uint8Array ? Infinity : CHUNK_BYTES;
  const j = size === Infinity ? 0 : Math.floor(o / size), at = j === 0 ? o : o - j * size;
  const first = chunks[j];
  if (first && at + n <= Math.min(first.length, size)) return first.subarray(at, at + n);
  const out = new Uint8Array(n);
  for (let w = 0, c = j, from = at; w < n; c++, from = 0) {
    const chunk = chunks[c];
    const take = Math.min(n - w, (chunk?.length ?? 0) - from);
    if (!chunk || take <= 0 || (size !== Infinity && c < chunks.length - 1 && chunk.length !== size)) {
      throw new RangeError(`stored bytes end before byte ${o + n}`);
    }
    out.set(chunk.subarray(from, from + take), w);
    w += take;
  }
  return out;
}

/** The header of deflateEach's bytes and a reader of its arrays in stored order (`next(T, n)`). */
function inflateEach<H>(stored: Stored): { header: H; next: <T>(T: ArrayKind, n: number) => T } {
  const lead = storedRange(stored, 0, 4);
  const count = new DataView(lead.buffer, lead.byteOffset, 4).getUint32(0, true);
  const sizes = storedRange(stored, 4, 4 * count);
  const view = new DataView(sizes.buffer, sizes.byteOffset, sizes.byteLength);
  const lengths = Array.from({ length: count }, (_, i) => view.getUint32(4 * i, true));
  let o = 4 * (count + 1), i = 0;
  // `size`: the inflated bytes when known, so they come in one buffer (not 16 kB pieces joined after: ~30%
  // less time)
  const piece = (size?: number) => {
    const bytes = storedRange(stored, o, lengths[i]);
    const p = size === undefined ? inflateRawSync(bytes) : inflateRawSync(bytes, { chunkSize: size + 64 });
    o += lengths[i++];
    return p;
  };
  const header = JSON.parse(new TextDecoder().decode(piece())) as H;
  const next = <T>(T: ArrayKind, n: number): T => {
    const p = piece(n * T.BYTES_PER_ELEMENT);
    // an inflated buffer may sit in a shared pool at any offset: copied when not aligned for T
    const aligned = p.byteOffset % T.BYTES_PER_ELEMENT === 0;
    const buf = aligned ? p.buffer : p.buffer.slice(p.byteOffset, p.byteOffset + p.byteLength);
    return new T(buf as ArrayBuffer, aligned ? p.byteOffset : 0, n) as T;
  };
  return { header, next };
}

/** The part's session table: per session two id hashes. */
export function encodeSessions(h1: Uint32Array, h2: Uint32Array): Uint8Array {
  return deflateEach({ n: h1.length }, [h1, h2]);
}

export function decodeSessions(stored: Stored): { h1: Uint32Array; h2: Uint32Array } {
  const { header, next } = inflateEach<{ n: number }>(stored);
  return { h1: next<Uint32Array>(Uint32Array, header.n), h2: next<Uint32Array>(Uint32Array, header.n) };
}

/** Writes a part's column: chunks first, then the entry. Answers the stored bytes. */
export async function storeStepColumn(kv: Deno.Kv, partId: string, secs: StepSection[]): Promise<number> {
  await deleteStepColumn(kv, partId); // an older version's chunks never sit among the new ones
  // no prototype: an event type named "__proto__" is a section like any other
  const entry: StepColumnEntry = { v: STEP_COLUMN_VERSION, bytes: 0, rows: 0, secs: Object.create(null) };
  const writes: [number, Uint8Array][] = [];
  let sec = 0;
  const add = (name: string, bytes: Uint8Array, rows: number) => {
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= SEC_SPAN) throw new Error(`step column section of ${partId} is too large`);
    entry.secs[name] = [sec, bytes.length, chunks, rows];
    for (let j = 0; j < chunks; j++) {
      writes.push([sec * SEC_SPAN + j, bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
    }
    entry.bytes += bytes.length;
    sec++;
  };
  for (const s of secs) {
    add(secName(s.et), encodeSection(s), s.n);
    entry.rows += s.n;
  }
  if (secs.length) add(SESSIONS, encodeSessions(secs[0].h1, secs[0].h2), secs[0].h1.length);
  packSections(entry, SEC_SPAN, writes);
  for (let i = 0; i < writes.length; i += 8) {
    const op = kv.atomic();
    for (const [at, bytes] of writes.slice(i, i + 8)) op.set(stepColumnKeys.chunk(partId, at), bytes);
    if (!(await op.commit()).ok) throw new Error("step column chunk write failed");
  }
  await kv.set(stepColumnKeys.entry(partId), entry);
  return entry.bytes;
}

/**
 * Compaction's entry point (beside the part's rollups): builds the column of the part's batch, `visitorOf`
 * giving each row's permanent visitor number (numbered if not given), and writes it. Answers stored bytes.
 */
export async function writeStepColumn(
  kv: Deno.Kv,
  partId: string,
  batch: Batch,
  org: string,
  env: EnvName,
  visitorOf?: (row: number) => number,
): Promise<number> {
  if (!visitorOf) {
    const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch)));
    visitorOf = (i) => rows[i];
  }
  return await storeStepColumn(kv, partId, buildStepColumn(batch, visitorOf));
}

/** Entries of the current version per part id, null where a part has none (yet, or of another version). */
export async function readStepEntries(kv: Deno.Kv, partIds: string[]): Promise<(StepColumnEntry | null)[]> {
  const got = await readMany<StepColumnEntry>(kv, partIds.map(stepColumnKeys.entry));
  return await Promise.all(
    got.map((g, k) =>
      g.value && g.value.v === STEP_COLUMN_VERSION
        ? unpackSections(kv, g.value, (at) => stepColumnKeys.chunk(partIds[k], at), SEC_SPAN)
        : null
    ),
  );
}

/** Whether a part has a column of the current version. */
export async function hasStepColumn(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await readStepEntries(kv, [partId]))[0] !== null;
}

/**
 * One event type's section of a part's column: null when the part has no rows of that type, undefined when
 * its chunks are gone (the part went meanwhile: the caller answers otherwise).
 */
export async function readStepSection(
  kv: Deno.Kv,
  partId: string,
  entry: StepColumnEntry,
  name: string,
): Promise<{ section: StepSection; stored: number } | null | undefined> {
  const [bytes] = await readChunksMany(kv, [{ id: partId, entry }], name);
  if (!bytes) return bytes;
  const section = decoded(partId, entry, name, bytes, decodeSection), stored = storedBytes(bytes);
  letGo(bytes);
  // (the question's own until let go: lib/working_memory.ts)
  holdArraysOf(section);
  return { section, stored };
}

/** The part's session table, or undefined when its chunks are gone. */
export async function readStepSessions(
  kv: Deno.Kv,
  partId: string,
  entry: StepColumnEntry,
): Promise<{ h1: Uint32Array; h2: Uint32Array } | undefined> {
  return (await readStepSessionsMany(kv, [{ id: partId, entry }]))[0];
}

/**
 * The session tables of many parts in one batched read (getMany of ten keys, many at once, instead of one
 * read per part: at 10M events 212 reads of one or two chunks waited on in turn), each undefined when its
 * chunks are gone.
 */
export async function readStepSessionsMany(
  kv: Deno.Kv,
  parts: { id: string; entry: StepColumnEntry }[],
): Promise<({ h1: Uint32Array; h2: Uint32Array } | undefined)[]> {
  const got = await readChunksMany(kv, parts, SESSIONS);
  return got.map((bytes, k) => {
    if (bytes === null) return { h1: new Uint32Array(0), h2: new Uint32Array(0) };
    if (!bytes) return bytes;
    const out = decoded(parts[k].id, parts[k].entry, SESSIONS, bytes, decodeSessions);
    letGo(bytes);
    return out;
  });
}

/**
 * Frees, at once, the buffers under arrays a question decoded or made for itself and is done with (a part's
 * step sections once their rows are copied out): at 10M events a cold paths question decodes ~200 MB of
 * them part by part and a funnel ~60 MB, which waited dead for V8's next full collection while the next
 * parts were decoded (the resident set ratcheted up by that much). A buffer no larger than node's shared
 * pool (`Buffer.poolSize`: small inflated arrays sit in it at some offset) is left: freeing it would detach
 * every other view on the pool.
 */
export function letGoArrays(views: Iterable<ArrayBufferView | null | undefined>): void {
  for (const v of views) {
    const b = v?.buffer;
    if (b instanceof ArrayBuffer && !b.detached && b.byteLength > Buffer.poolSize) {
      workingLetGo(b);
      b.transfer(0);
    }
  }
}

/**
 * Frees a part's decoded step sections (as `letGoArrays`), not the session table's arrays attached to them
 * (`h1`, `h2`: a question may attach them again when it reads the part once more).
 */
export function letGoSections(secs: readonly StepSection[]): void {
  for (const s of secs) letGoArrays([s.vis, s.t, s.dt, s.seq, s.page, s.tp, s.tr, s.row, s.ses]);
}

/**
 * A section's KV chunks once decoded (every array of it is inflated into buffers of its own): freed now, not
 * at V8's next full collection (a cold funnel or paths question at 10M events reads 34-47 MB of them, which
 * waited dead while the next parts were read).
 */
const letGo = (chunks: readonly Uint8Array[]) => {
  for (const c of chunks) release(c);
};

/**
 * One section's stored bytes of each part, in one batched read, as its chunks (see `Stored`): null where a
 * part has no such section, undefined where its chunks are gone.
 */
async function readChunksMany(
  kv: Deno.Kv,
  parts: { id: string; entry: StepColumnEntry }[],
  name: string,
): Promise<(Uint8Array[] | null | undefined)[]> {
  const ks: Deno.KvKey[] = [];
  const spans = parts.map(({ id, entry }) => {
    // own sections only: a step named "constructor" must not find Object.prototype's member
    const size = Object.hasOwn(entry.secs, name) ? entry.secs[name] : undefined;
    if (!size) return null;
    const [sec, , chunks] = size, at = ks.length;
    for (let j = 0; j < chunks; j++) ks.push(stepColumnKeys.chunk(id, sec * SEC_SPAN + j));
    return { at, chunks };
  });
  const got = await readMany<Uint8Array>(kv, ks);
  return spans.map((span) => {
    if (!span) return null;
    const chunks: Uint8Array[] = [];
    for (let j = 0; j < span.chunks; j++) {
      const value = got[span.at + j].value;
      if (value === null) return undefined;
      chunks.push(value);
    }
    return chunks;
  });
}

/** Bytes of a section's chunks. */
const storedBytes = (chunks: readonly Uint8Array[]) => chunks.reduce((n, c) => n + c.length, 0);

/**
 * A section decoded, checked against the rows its entry counts; stored bytes that cannot be read (a chunk
 * overwritten, a write cut short) fail with an error naming the part and the section, not a bare RangeError
 * from deep in the decoder.
 */
function decoded<T extends { h1: Uint32Array } | { n: number }>(
  partId: string,
  entry: StepColumnEntry,
  name: string,
  bytes: Stored,
  decode: (bytes: Stored) => T,
): T {
  const what = name === SESSIONS
    ? "session table"
    : name === secName(null)
    ? "section of events without a type"
    : `section of ${JSON.stringify(name)} events`;
  let out: T;
  try {
    out = decode(bytes);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(`step column of part ${partId}: its ${what} cannot be read (${why})`, { cause: e });
  }
  const rows = "n" in out ? out.n : out.h1.length, expected = entry.secs[name][3];
  if (rows !== expected) {
    throw new Error(
      `step column of part ${partId}: its ${what} holds ${rows} rows, its entry says ${expected}`,
    );
  }
  return out;
}

/** Deletes a part's column: the entry first, so no half column is ever read. */
export async function deleteStepColumn(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(stepColumnKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: stepColumnKeys.chunks(partId) }, { batchSize: 100 })) {
    ks.push(e.key);
  }
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
