/** Turning stored records into an encoded part (and parts back into records, for merging). */
import { dayNumber, keys } from "../store/keys.ts";
import { readMany } from "../store/read_many.ts";
import type { EnvName, StoredEvent, StoredHit, Verification, VerificationRecord } from "../store/records.ts";
import { decodeBatch, encodeBatch, type EncodedBatch } from "./codec.ts";
import type { Batch, NumCol, StrCol } from "./columns.ts";
import { buildEventBatch, reconstructEvents } from "./event_batch.ts";
import { buildHitBatch, reconstructHits } from "./hit_batch.ts";
import { noTurns, type Turn } from "../turns.ts";
import { partColumns, type PartKind, type PartMeta, readBlob } from "./store.ts";

export type AnyRecord = StoredEvent | StoredHit;

/** Later verification outcomes of these hits, by hit id. */
export async function verificationOutcomes(
  kv: Deno.Kv,
  org: string,
  ids: string[],
): Promise<Map<string, Verification>> {
  const out = new Map<string, Verification>();
  const got = await readMany<VerificationRecord>(kv, ids.map((id) => keys.verification(org, id)));
  got.forEach((g, j) => g.value && out.set(ids[j], g.value.outcome));
  return out;
}

export interface BuiltPart {
  encoded: EncodedBatch;
  /** the rows as columns (event parts: their rollup is built from it) */
  batch: Batch;
  rows: number;
  min_t: number;
  max_t: number;
  min_rt: number;
  max_rt: number;
  pending_verification: number;
}

function range(values: Float64Array): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * The index entry of a built part whose chunks are written: compaction (which publishes it pending while
 * raw keys remain, or done when it replaces merged parts) and the generator's direct parts share it.
 */
export function builtPartMeta(
  built: BuiltPart,
  id: string,
  kind: PartKind,
  chunks: number,
  pending: boolean,
  now: number,
): PartMeta {
  return {
    id,
    kind,
    rows: built.rows,
    min_t: built.min_t,
    max_t: built.max_t,
    min_rt: built.min_rt,
    max_rt: built.max_rt,
    day: dayNumber(built.min_t),
    chunks,
    bytes: built.encoded.blob.length,
    pending,
    pending_verification: built.pending_verification,
    created_at: now,
  };
}

/** Builds a part; `turn` gives the event loop turns while it works (compaction runs beside ingest). */
export async function buildPart(
  kv: Deno.Kv,
  org: string,
  kind: PartKind,
  records: AnyRecord[],
  turn: Turn = noTurns,
): Promise<BuiltPart> {
  let batch: Batch;
  let pendingVerification = 0;
  if (kind === "ev") batch = await buildEventBatch(records as StoredEvent[], turn);
  else {
    const hits = records as StoredHit[];
    const outcomes = await verificationOutcomes(kv, org, hits.map((h) => h.id));
    batch = await buildHitBatch(hits, (h) => outcomes.get(h.id) ?? h.verification, turn);
    const v = batch.cols.verification as StrCol;
    const pendingCode = v.dict.indexOf("pending") + 1;
    if (pendingCode > 0) { for (const c of v.codes) if (c === pendingCode) pendingVerification++; }
  }
  return await builtOfBatch(batch, kind, pendingVerification, turn);
}

/** The part of a batch built already (by `buildPart`, or the generator's straight from its drafts). */
export async function builtOfBatch(
  batch: Batch,
  kind: PartKind,
  pendingVerification = 0,
  turn: Turn = noTurns,
): Promise<BuiltPart> {
  const [min_t, max_t] = range((batch.cols.t as NumCol).values);
  const [min_rt, max_rt] = range((batch.cols[kind === "ev" ? "t" : "rt"] as NumCol).values);
  return {
    encoded: await encodeBatch(batch, turn),
    batch,
    rows: batch.n,
    min_t,
    max_t,
    min_rt,
    max_rt,
    pending_verification: pendingVerification,
  };
}

/** Every column of a published part, decoded (each inflated when first read). */
export async function partBatch(kv: Deno.Kv, meta: PartMeta): Promise<Batch> {
  return await decodeBatch({ n: meta.rows, columns: await partColumns(kv, meta) }, await readBlob(kv, meta));
}

/** All records of a published part (for merging). */
export async function partRecords(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  meta: PartMeta,
  turn: Turn = noTurns,
): Promise<AnyRecord[]> {
  const batch = await partBatch(kv, meta);
  return meta.kind === "ev"
    ? await reconstructEvents(batch, org, env, turn)
    : await reconstructHits(batch, org, env, turn);
}

/** The raw keys a part's rows came from (to delete them after publishing). */
export async function partRawKeys(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  meta: PartMeta,
): Promise<Deno.KvKey[]> {
  const rt = meta.kind === "ev" ? "t" : "rt";
  const b = await decodeBatch(
    { n: meta.rows, columns: await partColumns(kv, meta) },
    await readBlob(kv, meta),
    (c) => c === "id" || c === rt,
  );
  const ids = b.cols.id as StrCol, times = b.cols[rt] as NumCol;
  const out: Deno.KvKey[] = [];
  for (let i = 0; i < b.n; i++) {
    const id = ids.dict[ids.codes[i] - 1];
    out.push(
      meta.kind === "ev"
        ? keys.rawEvent(org, env, times.values[i], id)
        : keys.rawHit(org, env, times.values[i], id),
    );
  }
  return out;
}
