/**
 * A part's feature tables on KV, two sections: its rows merged over its hours (section 0, what a period taking
 * the whole part reads) and by hour (section 1, read for a part the period cuts). Each a JSON header
 * (dictionaries, hours) and the row arrays, visitor sets and session triples in one aligned buffer
 * (lib/parts/packed_arrays.ts), deflated and chunked under featureKeys.chunk(part id, section × 10,000 + i);
 * the entry featureKeys.entry(part id) = { v, hours, secs } is written last, so a table is there whole or not
 * at all. Compaction and the generator write it beside the part's
 * other tables (part_tables.ts), older parts get one from lib/jobs/feature_rollup_backfill.ts.
 */
import { deflateRawSync } from "node:zlib";
import { inflateArrays, packArrays, release } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { keys } from "../../store/keys.ts";
import type { FeatureTable, FeatureTables } from "./build.ts";
import { readSectionBytes } from "../section_index.ts";

/**
 * 3: rows by the element's name without its text too (`prop:element_plain`); 2: a section merged over the
 * part's hours (1: hourly rows only). A table of another version is rebuilt by the backfill; until then a
 * version-2 table is still read (`answeredFeatureVersion`), any other's part is read at question time.
 */
export const FEATURE_ROLLUP_VERSION = 3;

/**
 * Whether questions read a table of this version: this one, and version 2, which differs only by the plain
 * name: its rows read as events stored before ingest kept one (`element_plain` null), so an element whose
 * text fewer than 5 visitors used is named "(name withheld)" there and a form name needs 5 visitors, until the
 * backfill rebuilds it; its counts are exact. Reading a version-2 part's events at question time instead made
 * every behavior_features question of a large site read its period's parts after the upgrade (at 10M events
 * ~2 minutes of backfill on day parts, ~14 on the old 214-part layout).
 */
export const answeredFeatureVersion = (v: number): boolean => v === FEATURE_ROLLUP_VERSION || v === 2;

export const featureKeys = {
  entry: keys.featureRollup,
  chunk: keys.featureRollupChunk,
  chunks: keys.featureRollupChunks,
};

export interface FeatureEntry {
  v: number;
  /** (not stored) the entry's versionstamp when read: a chunk written after it is of a table being rewritten */
  versionstamp?: string;
  /** the part's hours with rows, with the receive-time range of their rows */
  hours: FeatureTable["hours"];
  /** per section (WHOLE_SEC, HOURLY_SEC): stored bytes, chunks, rows */
  secs: [number, number, number][];
}

/** Sections: rows merged over the part's hours, and by hour. */
export const WHOLE_SEC = 0, HOURLY_SEC = 1;
const SEC_SPAN = 10_000;

type Header = Pick<FeatureTable, "n" | "hours" | "tps" | "trs" | "texts"> & { setBytes: number; ses: number };

export function encodeFeatureTable(r: FeatureTable): Uint8Array {
  const header: Header = {
    n: r.n,
    hours: r.hours,
    tps: r.tps,
    trs: r.trs,
    texts: r.texts,
    setBytes: r.sets.byteLength,
    ses: r.sesVis.length,
  };
  const arrays: ArrayBufferView[] = [
    r.hour,
    r.action,
    r.page,
    r.element,
    r.form,
    r.plain,
    r.events,
    r.setAt,
    r.sesAt,
    r.sesVis,
    r.sesH1,
    r.sesH2,
    r.tp,
    r.tr,
    r.rage,
    r.sets,
  ];
  return deflateRawSync(packArrays(header, arrays));
}

/** A stored table of version `v` (2: without plain names, read as none: code 0, null). */
export function decodeFeatureTable(stored: Uint8Array, v = FEATURE_ROLLUP_VERSION): FeatureTable {
  const { header: h, next } = inflateArrays<Header>(stored);
  const u32 = (n: number) => next<Uint32Array>(Uint32Array, n);
  return {
    n: h.n,
    hours: h.hours,
    tps: h.tps,
    trs: h.trs,
    texts: h.texts,
    hour: u32(h.n),
    action: u32(h.n),
    page: u32(h.n),
    element: u32(h.n),
    form: u32(h.n),
    plain: v === 2 ? new Uint32Array(h.n) : u32(h.n),
    events: u32(h.n),
    setAt: u32(h.n + 1),
    sesAt: u32(h.n + 1),
    sesVis: u32(h.ses),
    sesH1: u32(h.ses),
    sesH2: u32(h.ses),
    tp: next<Uint16Array>(Uint16Array, h.n),
    tr: next<Uint8Array>(Uint8Array, h.n),
    rage: next<Uint8Array>(Uint8Array, h.n),
    sets: next<Uint8Array>(Uint8Array, h.setBytes),
  };
}

/** Writes a part's tables: chunks first, then the entry. Answers the stored bytes. */
export async function storeFeatureTable(kv: Deno.Kv, partId: string, r: FeatureTables): Promise<number> {
  await deleteFeatureTable(kv, partId); // an older version's chunks never sit among the new ones
  const secs: [number, number, number][] = [];
  const writes: [number, Uint8Array][] = [];
  [r.whole, r.hourly].forEach((t, sec) => {
    const bytes = encodeFeatureTable(t);
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= SEC_SPAN) throw new Error(`feature table of ${partId} is too large`);
    for (let j = 0; j < chunks; j++) {
      writes.push([sec * SEC_SPAN + j, bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES)]);
    }
    secs.push([bytes.length, chunks, t.n]);
  });
  for (let i = 0; i < writes.length; i += 8) {
    const op = kv.atomic();
    for (const [at, bytes] of writes.slice(i, i + 8)) op.set(featureKeys.chunk(partId, at), bytes);
    if (!(await op.commit()).ok) throw new Error("feature table chunk write failed");
  }
  const entry: FeatureEntry = { v: FEATURE_ROLLUP_VERSION, hours: r.hourly.hours, secs };
  await kv.set(featureKeys.entry(partId), entry);
  return secs.reduce((a, x) => a + x[0], 0);
}

/** A part's entry of the current version, or null (none yet, or of another version). */
export async function readFeatureEntry(kv: Deno.Kv, partId: string): Promise<FeatureEntry | null> {
  const entry = await answeredFeatureEntry(kv, partId);
  return entry && entry.v === FEATURE_ROLLUP_VERSION ? entry : null;
}

/**
 * A part's entry of a version questions read (`answeredFeatureVersion`: the backfill may not have rebuilt it
 * yet), or null.
 */
export async function answeredFeatureEntry(kv: Deno.Kv, partId: string): Promise<FeatureEntry | null> {
  const got = await kv.get<FeatureEntry>(featureKeys.entry(partId));
  const entry = got.value;
  return entry && answeredFeatureVersion(entry.v) ? { ...entry, versionstamp: got.versionstamp! } : null;
}

/** Whether a part has a table of the current version (else the backfill writes one). */
export const hasFeatureTable = async (kv: Deno.Kv, partId: string): Promise<boolean> =>
  (await readFeatureEntry(kv, partId)) !== null;

/**
 * One section of a part's tables, of the entry's version, or null when its chunks are gone (the part went
 * meanwhile) or, for an entry read with its versionstamp, one was written after the entry (the backfill is
 * writing the table again: it deletes the entry and chunks, then writes chunks, then the entry).
 */
export async function readFeatureTable(
  kv: Deno.Kv,
  partId: string,
  entry: FeatureEntry,
  sec: number,
): Promise<FeatureTable | null> {
  const [length, chunks] = entry.secs[sec];
  const chunkKey = (at: number) => featureKeys.chunk(partId, at);
  const bytes = await readSectionBytes(kv, chunkKey, SEC_SPAN, sec, length, chunks, entry.versionstamp);
  if (!bytes) return null;
  // (the table is inflated into a buffer of its own: the stored bytes go now)
  const table = decodeFeatureTable(bytes, entry.v);
  release(bytes);
  return table;
}

/** Deletes a part's table: the entry first, so no half table is ever read. */
export async function deleteFeatureTable(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(featureKeys.entry(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: featureKeys.chunks(partId) }, { batchSize: 100 })) ks.push(e.key);
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
