/**
 * Web Vitals tables for event parts written before they existed (or of an older version): each compaction
 * run of an environment's events adds them to a few such parts after its own work, under its lease (so no
 * merge removes a part while its table is written), until every part has one. Resumable by nature: what is
 * done is what has an entry of the current version. Until then Web Vitals questions read those parts' rows
 * themselves (a few) or scan (lib/query/vitals/source.ts).
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { partColumns, type PartMeta, readBlob } from "../parts/store.ts";
import { deleteVitals, hasVitals, partVitals, writeVitals } from "../query/vitals/store.ts";
import type { EnvName } from "../store/records.ts";
import { backfillEventParts, type PartBackfillOptions } from "./part_backfill.ts";

/** Adds tables to event parts of one environment that have none (16 a call by default); answers how many, and how many remain. */
export async function backfillVitals(
  deps: Deps,
  org: string,
  env: EnvName,
  o: PartBackfillOptions = {},
): Promise<{ parts: number; remaining: number; stored: number }> {
  const { kv } = deps;
  const add = async (meta: PartMeta) => {
    const columns = await partColumns(kv, meta);
    const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
    return await writeVitals(kv, meta.id, await partVitals(kv, org, env, batch));
  };
  const { parts, remaining, bytes } = await backfillEventParts(kv, org, env, {
    has: (id) => hasVitals(kv, id),
    add,
    remove: (id) => deleteVitals(kv, id),
  }, { ...o, maxParts: o.maxParts ?? 16 });
  return { parts, remaining, stored: bytes };
}
