/**
 * A part's tables rewritten as the release before their current version wrote them, for tests of what the
 * read engine answers from older tables until the backfill rebuilds them: Web Vitals tables of version 3
 * (no series' reporters: the last two of the stored arrays) and feature tables of version 2 (no plain name:
 * the sixth array). The stored layout of those versions otherwise is the current one (lib/query/vitals/store.ts
 * and lib/query/feature_rollup/store.ts at 4d43b6f~1 and a1465ca~1).
 */
import { deflateRawSync } from "node:zlib";
import { type ArrayKind, inflateArrays, packArrays } from "../../lib/parts/packed_arrays.ts";
import { CHUNK_BYTES } from "../../lib/parts/store.ts";
import type { VitalsTable } from "../../lib/query/vitals/build.ts";
import {
  encodeVitals,
  readVitals,
  VITALS_VERSION,
  type VitalsEntry,
  WHOLE_AT,
} from "../../lib/query/vitals/store.ts";
import {
  encodeFeatureTable,
  FEATURE_ROLLUP_VERSION,
  type FeatureEntry,
  featureKeys,
  HOURLY_SEC,
  readFeatureEntry,
  readFeatureTable,
  WHOLE_SEC,
} from "../../lib/query/feature_rollup/store.ts";
import { keys } from "../../lib/store/keys.ts";

type Header = { arrays: [string, number][] } & Record<string, unknown>;
const KINDS: Record<string, ArrayKind> = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f64: Float64Array,
};

async function writeChunks(kv: Deno.Kv, key: (i: number) => Deno.KvKey, first: number, bytes: Uint8Array) {
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let j = 0; j < chunks; j++) {
    await kv.set(key(first + j), bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES));
  }
  return chunks;
}

async function deleteAll(kv: Deno.Kv, prefix: Deno.KvKey) {
  for await (const e of kv.list({ prefix })) await kv.delete(e.key);
}

/**
 * Rewrites a part's Web Vitals tables (hourly and whole) as version 3 stored them: without the series'
 * reporters. `edit` changes each table first (a version-3 table built before 7d487f5 may count values out of
 * their metric's range).
 */
export async function asVitalsV3(
  kv: Deno.Kv,
  partId: string,
  edit: (t: VitalsTable) => VitalsTable = (t) => t,
): Promise<void> {
  const entry = (await kv.get<VitalsEntry>(keys.vitals(partId))).value;
  if (entry?.v !== VITALS_VERSION) {
    throw new Error(`part ${partId} has no vitals table of the current version`);
  }
  const v3 = async (whole: boolean) => {
    const t = edit((await readVitals(kv, partId, whole))!.table);
    const stored = encodeVitals({
      ...t,
      repAt: new Uint32Array(t.sRows.length + 1),
      reps: new Uint32Array(0),
    });
    const { header, next } = inflateArrays<Header>(stored);
    const arrays = header.arrays.map(([kind, n]) => next<ArrayBufferView>(KINDS[kind], n));
    // version 3's arrays: all but the reporters' (repBytes, repSets), which version 4 added last
    return deflateRawSync(packArrays({ ...header, arrays: header.arrays.slice(0, -2) }, arrays.slice(0, -2)));
  };
  const hourly = await v3(false), whole = await v3(true);
  await kv.delete(keys.vitals(partId));
  await deleteAll(kv, keys.vitalsChunks(partId));
  const key = (i: number) => keys.vitalsChunk(partId, i);
  const written: VitalsEntry = {
    ...entry,
    v: 3,
    bytes: hourly.length,
    chunks: await writeChunks(kv, key, 0, hourly),
    wholeBytes: whole.length,
    wholeChunks: await writeChunks(kv, key, WHOLE_AT, whole),
  };
  await kv.set(keys.vitals(partId), written);
}

/** Rewrites a part's feature tables (merged and hourly) as version 2 stored them: without the plain name. */
export async function asFeatureV2(kv: Deno.Kv, partId: string): Promise<void> {
  const entry = await readFeatureEntry(kv, partId);
  if (entry?.v !== FEATURE_ROLLUP_VERSION) {
    throw new Error(`part ${partId} has no feature table of the current version`);
  }
  const secs: FeatureEntry["secs"] = [];
  const sections: Uint8Array[] = [];
  for (const sec of [WHOLE_SEC, HOURLY_SEC]) {
    const t = (await readFeatureTable(kv, partId, entry, sec))!;
    const { header, next } = inflateArrays<Record<string, number>>(encodeFeatureTable(t));
    const u32 = (n: number) => next<Uint32Array>(Uint32Array, n);
    const n = header.n;
    // version 2's arrays: version 3's without `plain` (the sixth)
    const arrays: ArrayBufferView[] = [u32(n), u32(n), u32(n), u32(n), u32(n)];
    u32(n); // plain
    arrays.push(u32(n), u32(n + 1), u32(n + 1), u32(header.ses), u32(header.ses), u32(header.ses));
    arrays.push(
      next<Uint16Array>(Uint16Array, n),
      next<Uint8Array>(Uint8Array, n),
      next<Uint8Array>(Uint8Array, n),
      next<Uint8Array>(Uint8Array, header.setBytes),
    );
    const bytes = deflateRawSync(packArrays(header, arrays));
    sections.push(bytes);
    secs.push([bytes.length, Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES)), n]);
  }
  await kv.delete(featureKeys.entry(partId));
  await deleteAll(kv, featureKeys.chunks(partId));
  for (const [sec, bytes] of sections.entries()) {
    await writeChunks(kv, (i) => featureKeys.chunk(partId, i), sec * 10_000, bytes);
  }
  const written: FeatureEntry = { v: 2, hours: entry.hours, secs };
  await kv.set(featureKeys.entry(partId), written);
}

/**
 * Ingests `n` page views (other visitors, pages and event types than a test asks about) so that a site's parts
 * would not fit a part cache of PART_CACHE_MB 1 (the tables answer) while the tables' share of it keeps what
 * they read (a cache too small for the scan is also too small to keep a decoded table).
 */
export async function padWithPageviews(
  ingest: (batch: unknown[]) => Response | Promise<Response>,
  at: number,
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    const batch = Array.from({ length: Math.min(200, n - i) }, (_, k) => ({
      event_id: crypto.randomUUID(),
      anonymous_id: `pad${(i + k) % 40}`,
      session_id: `pad${(i + k) % 40}`,
      sequence_no: i + k,
      platform: "web",
      event_type: "$pageview",
      screen: "/pad",
      properties: { path: "/pad", url: "https://acme.test/pad" },
      device_time: new Date(at + i + k).toISOString(),
    }));
    const res = await ingest(batch);
    if (res.status !== 204) throw new Error(`padding: ${res.status} ${await res.text()}`);
  }
}
