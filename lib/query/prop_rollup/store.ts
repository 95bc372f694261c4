/**
 * A part's property rollup on KV, a section per event type (a question reads only its event type's): each a
 * JSON header (dictionaries, hours, capped pairs) and the row arrays and visitor sets in one aligned buffer,
 * deflated and chunked under propRollupKeys.chunk(part id, section × 10,000 + i); the entry
 * propRollupKeys.entry(part id) = { v, bytes, rows, secs } is written last, so a table is there whole or not
 * at all. Compaction writes it beside the part's other rollups (under its building mark), deleting a part's bytes
 * deletes it (deletePropRollup), and older parts get one from lib/jobs/prop_rollup_backfill.ts.
 */
import { deflateRawSync } from "node:zlib";
import { inflateArrays, packArrays, release } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import type { Batch } from "../../parts/columns.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import type { EnvName } from "../../store/records.ts";
import { keys } from "../../store/keys.ts";
import { packSections, readSectionBytes, unpackSections } from "../section_index.ts";
import { batchVisitors, rowVisitors } from "../rollup/build.ts";
import { ANY, buildPropRollup, type PropRollup, PropTableTooWide, TOTAL_KEY, WHOLE } from "./build.ts";

/** 3: a section per event type (2: one blob; 1: values past the cap dropped, not merged). A table of another version is rebuilt by the backfill; questions read its part meanwhile. */
export const PROP_ROLLUP_VERSION = 3;

/** KV keys of property rollups (lib/store/keys.ts: an entry, its chunks beside it). */
export const propRollupKeys = {
  entry: keys.propRollup,
  chunk: keys.propRollupChunk,
  chunks: keys.propRollupChunks,
};

export interface PropRollupEntry {
  v: number;
  /** stored bytes of all sections */
  bytes: number;
  /** rows, for benches */
  rows: number;
  /** per event type (secName): section number, stored bytes, chunks, rows */
  secs: Record<string, [number, number, number, number]>;
  /** `secs` moved to chunks of its own when too long for the entry (section_index.ts) */
  index?: [number, number];
  /** the part has more property names than a table holds (PropTableTooWide): its questions scan */
  wide?: true;
  /** sections (secName) of event types too wide for the table (build.ts `tooWide`): their questions scan */
  wideEts?: string[];
}

type Header =
  & Omit<PropRollup, "hour" | "tp" | "tr" | "et" | "key" | "value" | "events" | "setAt" | "sets">
  & {
    setBytes: number;
  };

export function encodePropRollup(r: PropRollup): Uint8Array {
  const header: Header = {
    n: r.n,
    hours: r.hours,
    tps: r.tps,
    trs: r.trs,
    ets: r.ets,
    keys: r.keys,
    values: r.values,
    scan: r.scan,
    whole: r.whole,
    setBytes: r.sets.byteLength,
  };
  // widest first, so each array starts aligned
  const arrays: ArrayBufferView[] = [r.hour, r.value, r.events, r.setAt, r.tp, r.et, r.key, r.tr, r.sets];
  return deflateRawSync(packArrays(header, arrays));
}

export function decodePropRollup(stored: Uint8Array): PropRollup {
  const { header: h, next } = inflateArrays<Header>(stored);
  const { setBytes, ...rest } = h;
  return {
    ...rest,
    hour: next<Uint32Array>(Uint32Array, h.n),
    value: next<Uint32Array>(Uint32Array, h.n),
    events: next<Uint32Array>(Uint32Array, h.n),
    setAt: next<Uint32Array>(Uint32Array, h.n + 1),
    tp: next<Uint16Array>(Uint16Array, h.n),
    et: next<Uint16Array>(Uint16Array, h.n),
    key: next<Uint16Array>(Uint16Array, h.n),
    tr: next<Uint8Array>(Uint8Array, h.n),
    sets: next<Uint8Array>(Uint8Array, setBytes),
  };
}

/**
 * Builds and writes a part's table. A part with more property names than a table holds gets an entry marked
 * `wide` instead: compaction and the backfill go on (a throw here stopped the organization's compaction for
 * good, as every run started again at that day), and its questions scan. Answers the stored bytes.
 */
export async function storeBuiltPropRollup(
  kv: Deno.Kv,
  partId: string,
  build: () => PropRollup | Promise<PropRollup>,
): Promise<number> {
  let r: PropRollup;
  try {
    r = await build();
  } catch (e) {
    if (!(e instanceof PropTableTooWide)) throw e;
    await deletePropRollup(kv, partId);
    const entry: PropRollupEntry = { v: PROP_ROLLUP_VERSION, bytes: 0, rows: 0, secs: {}, wide: true };
    await kv.set(propRollupKeys.entry(partId), entry);
    return 0;
  }
  return await storePropRollup(kv, partId, r);
}

/** Chunk numbers of one section: section × SEC_SPAN + chunk. */
const SEC_SPAN = 10_000;
/** A section's name for an event type (null has one too). */
export const secName = (et: string | null): string => et ?? "\u0000null";

/**
 * A table's rows of one event type code (rows are sorted by it), as a table of its own: its own hours,
 * dictionaries cut to what its rows use.
 */
export function sectionOf(r: PropRollup, et: number, from = 0): PropRollup {
  // `from`: where to start looking (a writer walking the event types in order: linear, not types × rows)
  const a = firstRowOf(r, et, from);
  let b = a;
  while (b < r.n && r.et[b] === et) b++;
  const n = b - a;
  const remap = (codes: ArrayLike<number>, dict: (string | null)[], keep: (c: number) => boolean) => {
    const to = new Map<number, number>(), out: (string | null)[] = [];
    for (let i = a; i < b; i++) {
      const c = codes[i];
      if (keep(c) && !to.has(c)) to.set(c, out.push(dict[c]) - 1);
    }
    return { to, out };
  };
  const tk = remap(r.key, r.keys, (c) => c !== TOTAL_KEY);
  const vals = new Map<number, number>([[0, 0]]), values: (string | null)[] = [null];
  for (let i = a; i < b; i++) {
    const v = r.value[i];
    if (v !== ANY && !vals.has(v)) vals.set(v, values.push(r.values[v]) - 1);
  }
  const hourSet = new Set<number>();
  for (let i = a; i < b; i++) if (r.hour[i] !== WHOLE) hourSet.add(r.hour[i]);
  const pairs = (list: number[]) => {
    const out: number[] = [];
    for (let p = 0; p < list.length; p += 2) {
      if (list[p] === et && tk.to.has(list[p + 1])) out.push(0, tk.to.get(list[p + 1])!);
    }
    return out;
  };
  return {
    n,
    // the hours' time ranges are the part's (rows of other event types in them make them wider, never
    // narrower: an hour is taken only when all the part's rows of it lie inside the period)
    hours: r.hours.filter((h) => hourSet.has(h.hour)),
    tps: r.tps,
    trs: r.trs,
    ets: [r.ets[et]],
    keys: tk.out as string[],
    values,
    scan: pairs(r.scan),
    whole: pairs(r.whole),
    tooWide: r.tooWide?.includes(et) ? [0] : [],
    hour: r.hour.slice(a, b),
    tp: r.tp.slice(a, b),
    tr: r.tr.slice(a, b),
    et: new Uint16Array(n),
    key: Uint16Array.from(r.key.subarray(a, b), (k) => (k === TOTAL_KEY ? TOTAL_KEY : tk.to.get(k)!)),
    value: Uint32Array.from(r.value.subarray(a, b), (v) => (v === ANY ? ANY : vals.get(v)!)),
    events: r.events.slice(a, b),
    setAt: Uint32Array.from(r.setAt.subarray(a, b + 1), (x) => x - r.setAt[a]),
    sets: r.sets.slice(r.setAt[a], r.setAt[b]),
  };
}

/**
 * Writes a part's table as one section per event type (a question reads its event type's only): chunks
 * first, then the entry. Answers the stored bytes.
 */
export async function storePropRollup(kv: Deno.Kv, partId: string, r: PropRollup): Promise<number> {
  await deletePropRollup(kv, partId); // an older version's chunks never sit among the new ones
  // no prototype: an event type named "__proto__" is a section like any other
  const secs: Record<string, [number, number, number, number]> = Object.create(null);
  const writes: [number, Uint8Array][] = [];
  let total = 0, sec = 0, at = 0;
  for (let et = 0; et < r.ets.length; et++) {
    const first = firstRowOf(r, et, at);
    const part = sectionOf(r, et, first);
    if (!part.n) continue;
    at = first + part.n;
    const bytes = encodePropRollup(part);
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= SEC_SPAN) throw new Error(`property rollup section of ${partId} is too large`);
    secs[secName(r.ets[et])] = [sec, bytes.length, chunks, part.n];
    for (let j = 0; j < chunks; j++) {
      writes.push([sec * SEC_SPAN + j, bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
    }
    total += bytes.length;
    sec++;
  }
  const entry: PropRollupEntry = { v: PROP_ROLLUP_VERSION, bytes: total, rows: r.n, secs };
  if (r.tooWide?.length) entry.wideEts = r.tooWide.map((et) => secName(r.ets[et]));
  packSections(entry, SEC_SPAN, writes);
  for (let i = 0; i < writes.length; i += 8) {
    const op = kv.atomic();
    for (const [at, bytes] of writes.slice(i, i + 8)) op.set(propRollupKeys.chunk(partId, at), bytes);
    if (!(await op.commit()).ok) throw new Error("property rollup chunk write failed");
  }
  await kv.set(propRollupKeys.entry(partId), entry);
  return total;
}

/** The first row of event type code `et` at or after `from` (rows are sorted by event type). */
function firstRowOf(r: PropRollup, et: number, from: number): number {
  let a = from;
  while (a < r.n && r.et[a] !== et) a++;
  return a;
}

/**
 * Compaction's entry point (beside writeRollup / writeHitRollup, and in the generator's part writer): builds
 * the part's table from its batch and writes it. Answers the stored bytes.
 */
export async function writePropRollup(
  kv: Deno.Kv,
  partId: string,
  batch: Batch,
  org: string,
  env: EnvName,
  o: { cap?: number; wholeCap?: number } = {},
): Promise<number> {
  const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch)));
  return await storeBuiltPropRollup(
    kv,
    partId,
    () => buildPropRollup(batch, (i) => rows[i], { cap: o.cap, wholeCap: o.wholeCap }),
  );
}

/** Whether a part has a table of the current version. */
export async function hasPropRollup(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await kv.get<PropRollupEntry>(propRollupKeys.entry(partId))).value?.v === PROP_ROLLUP_VERSION;
}

/** A part's table entry of the current version, or null (none yet, or of another version). */
export async function readPropEntry(kv: Deno.Kv, partId: string): Promise<PropRollupEntry | null> {
  const entry = (await kv.get<PropRollupEntry>(propRollupKeys.entry(partId))).value;
  if (!entry || entry.v !== PROP_ROLLUP_VERSION) return null;
  return await unpackSections(kv, entry, (at) => propRollupKeys.chunk(partId, at), SEC_SPAN);
}

/**
 * One event type's section of a part's table: an empty table when the part has no rows of it, null when its
 * chunks are gone (the part went meanwhile: the caller answers otherwise).
 */
export async function readPropSection(
  kv: Deno.Kv,
  partId: string,
  entry: PropRollupEntry,
  name: string,
): Promise<{ rollup: PropRollup; stored: number } | null> {
  // own sections only: an event named "constructor" or "toString" must not find Object.prototype's member
  const size = Object.hasOwn(entry.secs, name) ? entry.secs[name] : undefined;
  if (!size) return { rollup: emptyPropRollup(), stored: 0 };
  const [sec, length, chunks] = size;
  const bytes = await readSectionBytes(
    kv,
    (at) => propRollupKeys.chunk(partId, at),
    SEC_SPAN,
    sec,
    length,
    chunks,
  );
  if (!bytes) return null;
  const rollup = decodePropRollup(bytes);
  release(bytes); // (inflated into a buffer of its own)
  return { rollup, stored: length };
}

/** A whole table read back from its sections (tests), or null without one. */
export async function readPropRollup(kv: Deno.Kv, partId: string): Promise<PropRollup[] | null> {
  const entry = await readPropEntry(kv, partId);
  if (!entry) return null;
  const out: PropRollup[] = [];
  for (const name of Object.keys(entry.secs)) {
    const got = await readPropSection(kv, partId, entry, name);
    if (!got) return null;
    out.push(got.rollup);
  }
  return out;
}

/** A table without rows. */
export function emptyPropRollup(): PropRollup {
  return {
    n: 0,
    hours: [],
    tps: [],
    trs: [],
    ets: [],
    keys: [],
    values: [null],
    scan: [],
    whole: [],
    tooWide: [],
    hour: new Uint32Array(0),
    tp: new Uint16Array(0),
    tr: new Uint8Array(0),
    et: new Uint16Array(0),
    key: new Uint16Array(0),
    value: new Uint32Array(0),
    events: new Uint32Array(0),
    setAt: new Uint32Array(1),
    sets: new Uint8Array(0),
  };
}

/** Deletes a part's table: the entry first, so no half table is ever read. */
export async function deletePropRollup(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(propRollupKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: propRollupKeys.chunks(partId) }, { batchSize: 100 })) {
    ks.push(e.key);
  }
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
