/**
 * A part's Web Vitals table on KV: one JSON header (value lists, hours, array kinds) and the arrays in one
 * aligned buffer, deflated and chunked under keys.vitalsChunk(part id, i); the entry keys.vitals(part id) =
 * { v, bytes, chunks } is written last, so a table is there whole or not at all. Compaction writes it under
 * the part's building mark, deleteChunks (lib/parts/store.ts) deletes it with the part, the generator's
 * direct parts get one, and older parts get one from lib/jobs/vitals_backfill.ts.
 */
import { deflateRawSync } from "node:zlib";
import type { Batch, StrCol } from "../../parts/columns.ts";
import { inflateArrays, packArrays, release } from "../../parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../parts/store.ts";
import { numberVisitors } from "../../parts/visitor_numbers.ts";
import { decodeSetInto, encodeSet } from "../../parts/visitor_set.ts";
import { keys } from "../../store/keys.ts";
import type { EnvName } from "../../store/records.ts";
import { eventView, type Viewable } from "../columns/views.ts";
import { VITAL_RANGES } from "../../schemas/capture_ranges.ts";
import { bucketOf } from "./buckets.ts";
import { buildVitals, narrow, VITALS_EVENT, type VitalsTable } from "./build.ts";

/**
 * 3: an hourly and a whole-part table, offsets and keys stored as lengths and differences. 4: each series
 * keeps its reporters (at most 5 visitor numbers: whether a metric was reported by fewer than 5 people).
 * Tables of another version are rebuilt by the backfill; until then a version-3 table is still read
 * (`answeredVitalsVersion`), any other's part is read exactly (or the period scanned).
 */
export const VITALS_VERSION = 4;

/**
 * Whether questions read a table of this version: this one, and version 3, which differs only by the series'
 * reporters (read as none until the backfill rebuilds it: a lower bound, so a metric's percentiles, rating and
 * shares are withheld meanwhile, as where fewer than 5 people reported it) and by values out of their metric's
 * range (a table built before 7d487f5 counted them: `inRangeBuckets` drops them when read). Sending a
 * version-3 part to the exact read or the scan made every Web Vitals question of a large site scan its period
 * after the upgrade (past QUESTION_MEMORY_MB, a 422) until the backfill had passed.
 */
export const answeredVitalsVersion = (v: number): boolean => v === VITALS_VERSION || v === 3;

export interface VitalsEntry {
  v: number;
  /** the hourly table's stored bytes and chunks */
  bytes: number;
  chunks: number;
  /** the whole-part table's */
  wholeBytes: number;
  wholeChunks: number;
  /** the hours with rows and their receive-time ranges (which table a question reads, without reading one) */
  hours: VitalsTable["hours"];
}

/**
 * The arrays as stored: offsets as lengths (setAt, at), series' cells as series per cell, keys as the first of
 * each series then differences (ascending within a series), reporters as visitor sets (delta varints, as the
 * cells' people) with their lengths in bytes, everything unsigned narrowed to the bytes its
 * largest value needs; deflate then finds mostly small numbers.
 */
const ARRAYS = [
  "cHour",
  "cTp",
  "cTraffic",
  "cPage",
  "cDevice",
  "cRows",
  "setLen",
  "sets",
  "perCell",
  "sMetric",
  "sRows",
  "len",
  "key",
  "count",
  "repBytes",
  "repSets",
] as const;

type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
const KINDS = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array };
type Kind = keyof typeof KINDS;
const kindOf = (a: Typed): Kind =>
  a instanceof Uint8Array
    ? "u8"
    : a instanceof Uint16Array
    ? "u16"
    : a instanceof Uint32Array
    ? "u32"
    : a instanceof Int32Array
    ? "i32"
    : "f64";

interface Header {
  exact: boolean;
  lists: (string | null)[][];
  hours: VitalsTable["hours"];
  arrays: [Kind, number][];
}

function concat(list: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(list.reduce((n, x) => n + x.length, 0));
  let o = 0;
  for (const x of list) {
    out.set(x, o);
    o += x.length;
  }
  return out;
}

const lengths = (offsets: Uint32Array) => narrow(offsets.subarray(1).map((x, i) => x - offsets[i]));
function offsets(lens: ArrayLike<number>): Uint32Array {
  const out = new Uint32Array(lens.length + 1);
  for (let i = 0; i < lens.length; i++) out[i + 1] = out[i] + lens[i];
  return out;
}

function stored(t: VitalsTable): Record<(typeof ARRAYS)[number], Typed> {
  const perCell = new Uint32Array(t.cRows.length);
  for (const c of t.sCell) perCell[c]++;
  const key = t.key.slice();
  const repSets: Uint8Array[] = [], repBytes = new Uint32Array(t.sRows.length);
  for (let k = 0; k < t.sRows.length; k++) {
    for (let e = t.at[k + 1] - 1; e > t.at[k]; e--) key[e] -= key[e - 1];
    const set = encodeSet(t.reps.subarray(t.repAt[k], t.repAt[k + 1]));
    repSets.push(set);
    repBytes[k] = set.length;
  }
  return {
    cHour: narrow(t.cHour),
    cTp: narrow(t.cTp),
    cTraffic: narrow(t.cTraffic),
    cPage: narrow(t.cPage),
    cDevice: narrow(t.cDevice),
    cRows: narrow(t.cRows),
    setLen: lengths(t.setAt),
    sets: t.sets,
    perCell: narrow(perCell),
    sMetric: narrow(t.sMetric),
    sRows: narrow(t.sRows),
    len: lengths(t.at),
    key,
    count: narrow(t.count),
    repBytes: narrow(repBytes),
    repSets: concat(repSets),
  };
}

export function encodeVitals(t: VitalsTable): Uint8Array {
  const byName = stored(t);
  const arrays = ARRAYS.map((name) => byName[name]);
  const header: Header = {
    exact: t.exact,
    lists: [t.tps, t.traffics, t.pages, t.devices, t.metrics],
    hours: t.hours,
    arrays: arrays.map((a) => [kindOf(a), a.length]),
  };
  return deflateRawSync(packArrays(header, arrays));
}

export function decodeVitals(bytes: Uint8Array): VitalsTable {
  const { header: h, next } = inflateArrays<Header>(bytes);
  const a = {} as Record<(typeof ARRAYS)[number], Typed>;
  ARRAYS.forEach((name, k) => {
    if (k >= h.arrays.length) return;
    const [kind, n] = h.arrays[k];
    a[name] = next<Typed>(KINDS[kind], n);
  });
  // a version-3 table lists no reporters' arrays (they came last): each series' set empty
  a.repBytes ??= new Uint8Array(a.sRows.length);
  a.repSets ??= new Uint8Array(0);
  const wide = (x: Typed) => Uint32Array.from(x);
  const at = offsets(a.len);
  const sCell = new Uint32Array(a.sRows.length);
  for (let c = 0, k = 0; c < a.perCell.length; c++) for (let j = 0; j < a.perCell[c]; j++) sCell[k++] = c;
  const key = (h.exact ? Float64Array : Int32Array).from(a.key);
  for (let k = 0; k < at.length - 1; k++) for (let e = at[k] + 1; e < at[k + 1]; e++) key[e] += key[e - 1];
  // (at most one member a byte)
  const repSets = a.repSets as Uint8Array, reps = new Uint32Array(repSets.length);
  const repAt = new Uint32Array(a.repBytes.length + 1);
  for (let k = 0, from = 0; k < a.repBytes.length; k++) {
    const to = from + a.repBytes[k];
    repAt[k + 1] = decodeSetInto(repSets, from, to, reps, repAt[k]);
    from = to;
  }
  const [tps, traffics, pages, devices, metrics] = h.lists;
  return {
    exact: h.exact,
    tps,
    traffics,
    pages,
    devices,
    metrics,
    hours: h.hours,
    cHour: wide(a.cHour),
    cTp: wide(a.cTp),
    cTraffic: wide(a.cTraffic),
    cPage: wide(a.cPage),
    cDevice: wide(a.cDevice),
    cRows: wide(a.cRows),
    setAt: offsets(a.setLen),
    sets: a.sets as Uint8Array,
    sCell,
    sMetric: wide(a.sMetric),
    sRows: wide(a.sRows),
    at,
    repAt,
    reps: reps.slice(0, repAt[repAt.length - 1]),
    key,
    count: wide(a.count),
  };
}

/** A part's tables: by hour, and with its hours merged (read by questions that take every hour of it). */
export interface PartVitals {
  hourly: VitalsTable;
  whole: VitalsTable;
}

/** A part's tables, its people's visitors numbered as the rollups number them (new ids get new numbers). */
export async function partVitals(kv: Deno.Kv, org: string, env: EnvName, b: Batch): Promise<PartVitals> {
  return vitalsOf(b, await vitalsVisitors(b, (ids) => numberVisitors(kv, org, env, ids)));
}

/** A part's tables from its rows' visitor numbers (only its people's `$web_vitals` rows' are read). */
export const vitalsOf = (b: Batch, visitorOf: (row: number) => number): PartVitals => ({
  hourly: buildVitals(b, visitorOf),
  whole: buildVitals(b, visitorOf, { whole: true }),
});

/**
 * Row → visitor number for a batch's people's `$web_vitals` rows, numbering only their anonymous ids (a part's
 * vitals are a few percent of its rows: far fewer lookups than numbering every id).
 */
export async function vitalsVisitors(
  b: Batch,
  number: (ids: string[]) => Promise<Map<string, number>>,
): Promise<(row: number) => number> {
  const ids = vitalsIds(b);
  const numbers = await number([...ids.used.values()]);
  const byCode = new Map<number, number>();
  for (const [code, id] of ids.used) byCode.set(code, numbers.get(id) ?? 0);
  return (i) => byCode.get(ids.anon.codes[i]) ?? 0;
}

/** The anonymous ids (by column code) of a batch's people's `$web_vitals` rows. */
export function vitalsIds(b: Batch): { anon: StrCol; used: Map<number, string> } {
  const v: Viewable = { b, n: b.n, views: new Map() };
  const type = eventView(v, "event_type"), traffic = eventView(v, "traffic");
  const code = type.values.indexOf(VITALS_EVENT), human = traffic.values.indexOf("human");
  const anon = b.cols.anon as StrCol;
  const used = new Map<number, string>();
  if (code <= 0 || human <= 0 || !anon) return { anon, used };
  for (let i = 0; i < b.n; i++) {
    if (type.codes[i] !== code || traffic.codes[i] !== human) continue;
    const c = anon.codes[i];
    if (c > 0 && !used.has(c)) used.set(c, anon.dict[c - 1]);
  }
  return { anon, used };
}

/** Chunk numbers of the whole-part table start here (the hourly table's from 0). */
export const WHOLE_AT = 100_000;

/** Writes a part's tables: chunks first, then the entry. Answers the stored bytes. */
export async function writeVitals(kv: Deno.Kv, partId: string, t: PartVitals): Promise<number> {
  const write = async (bytes: Uint8Array, first: number) => {
    const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
    if (chunks >= WHOLE_AT) throw new Error(`vitals table of ${partId} is too large`);
    for (let i = 0; i < chunks; i += 8) {
      const op = kv.atomic();
      for (let j = i; j < Math.min(chunks, i + 8); j++) {
        op.set(keys.vitalsChunk(partId, first + j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
      }
      if (!(await op.commit()).ok) throw new Error("vitals chunk write failed");
    }
    return chunks;
  };
  const hourly = encodeVitals(t.hourly), whole = encodeVitals(t.whole);
  const entry: VitalsEntry = {
    v: VITALS_VERSION,
    bytes: hourly.length,
    chunks: await write(hourly, 0),
    wholeBytes: whole.length,
    wholeChunks: await write(whole, WHOLE_AT),
    hours: t.hourly.hours,
  };
  await kv.set(keys.vitals(partId), entry);
  return hourly.length + whole.length;
}

/** A part's entry of the current version (its hours say which table a question reads), or null. */
export async function vitalsEntry(kv: Deno.Kv, partId: string): Promise<VitalsEntry | null> {
  const entry = (await kv.get<VitalsEntry>(keys.vitals(partId))).value;
  return entry?.v === VITALS_VERSION ? entry : null;
}

/**
 * A part's entry of a version questions read (`answeredVitalsVersion`: the backfill may not have rebuilt it
 * yet), or null.
 */
export async function answeredVitalsEntry(kv: Deno.Kv, partId: string): Promise<VitalsEntry | null> {
  const entry = (await kv.get<VitalsEntry>(keys.vitals(partId))).value;
  return entry && answeredVitalsVersion(entry.v) ? entry : null;
}

/** Whether a part has tables of the current version (else the backfill writes them). */
export async function hasVitals(kv: Deno.Kv, partId: string): Promise<boolean> {
  return (await vitalsEntry(kv, partId)) !== null;
}

/**
 * A part's hourly or whole-part table, its stored bytes and version (`answeredVitalsVersion`), or null when it
 * has none of such a version, it went meanwhile, or the backfill is writing it again now (a chunk written after
 * the entry read: the backfill writes a version-3 table's chunks over the old ones, then its entry).
 */
export async function readVitals(
  kv: Deno.Kv,
  partId: string,
  whole = false,
): Promise<{ table: VitalsTable; stored: number; v: number } | null> {
  const got = await kv.get<VitalsEntry>(keys.vitals(partId));
  const entry = got.value;
  if (!entry || !answeredVitalsVersion(entry.v)) return null;
  const size = whole ? entry.wholeBytes : entry.bytes, chunks = whole ? entry.wholeChunks : entry.chunks;
  const first = whole ? WHOLE_AT : 0;
  const bytes = new Uint8Array(size);
  let seen = 0, torn = false;
  const range = { start: keys.vitalsChunk(partId, first), end: keys.vitalsChunk(partId, first + chunks) };
  for await (const e of kv.list<Uint8Array>(range, { batchSize: 100 })) {
    const at = ((e.key[2] as number) - first) * CHUNK_BYTES;
    // (versionstamps grow with each commit: a chunk newer than its entry belongs to a table not written whole)
    if (e.versionstamp > got.versionstamp! || at + e.value.length > size) torn = true;
    else bytes.set(e.value, at);
    release(e.value); // (copied: freed now, not at V8's next full collection)
    seen++;
  }
  if (seen !== chunks || torn) return null;
  let table = decodeVitals(bytes);
  release(bytes); // (inflated into a buffer of its own)
  if (entry.v === 3) table = inRangeBuckets(table);
  return { table, stored: size, v: entry.v };
}

/**
 * A table without the entries of buckets that hold only values outside their metric's range
 * (capture_ranges.ts): a table of version 3 built before 7d487f5 counted them (an LCP of 1e300 made a p95 of
 * 1e300), later builds leave them out, as the scan does. Bucket ids ascend with the values they hold, and each
 * range's ends are bucket edges, so what is kept is exactly what a build now counts.
 */
export function inRangeBuckets(t: VitalsTable): VitalsTable {
  if (t.exact) return t;
  const bounds = t.metrics.map((m) => {
    const r = m !== null && Object.hasOwn(VITAL_RANGES, m) ? VITAL_RANGES[m] : undefined;
    return r ? [bucketOf(r.min), bucketOf(r.max)] : null;
  });
  const keep = new Uint8Array(t.key.length);
  let kept = 0;
  for (let k = 0; k < t.sRows.length; k++) {
    const b = bounds[t.sMetric[k]];
    for (let e = t.at[k]; e < t.at[k + 1]; e++) {
      if (b && (t.key[e] < b[0] || t.key[e] > b[1])) continue;
      keep[e] = 1;
      kept++;
    }
  }
  if (kept === t.key.length) return t;
  const key = new Int32Array(kept), count = new Uint32Array(kept), at = new Uint32Array(t.at.length);
  for (let k = 0, o = 0; k < t.sRows.length; k++) {
    for (let e = t.at[k]; e < t.at[k + 1]; e++) {
      if (!keep[e]) continue;
      key[o] = t.key[e];
      count[o++] = t.count[e];
    }
    at[k + 1] = o;
  }
  return { ...t, key, count, at };
}

/** Deletes a part's table: the entry first, so no half table is ever read. */
export async function deleteVitals(kv: Deno.Kv, partId: string): Promise<void> {
  await kv.delete(keys.vitals(partId));
  const ks: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix: keys.vitalsChunks(partId) }, { batchSize: 100 })) ks.push(e.key);
  for (let i = 0; i < ks.length; i += 100) {
    const op = kv.atomic();
    for (const k of ks.slice(i, i + 100)) op.delete(k);
    await op.commit();
  }
}
