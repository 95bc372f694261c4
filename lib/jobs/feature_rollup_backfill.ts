/**
 * Feature tables for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge
 * removes a part while its table is written), until every part has one. Resumable by nature: what is done is
 * what has a table entry of the current version. Until then questions read those parts
 * (feature_rollup/planner.ts). Reads only the columns a table needs.
 */
import type { Deps } from "../deps.ts";
import type { PartMeta } from "../parts/store.ts";
import { numberVisitors } from "../parts/visitor_numbers.ts";
import { buildFeatureTable } from "../query/feature_rollup/build.ts";
import { readPartBatch } from "../query/feature_rollup/planner.ts";
import { deleteFeatureTable, hasFeatureTable, storeFeatureTable } from "../query/feature_rollup/store.ts";
import { batchVisitors, rowVisitors } from "../query/rollup/build.ts";
import type { EnvName } from "../store/records.ts";
import { backfillEventParts, type PartBackfillOptions } from "./part_backfill.ts";

/** Adds feature tables to event parts of one environment that have none (8 a call by default); answers how many, and how many remain. */
export function backfillFeatureTables(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: PartBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const add = async (meta: PartMeta) => {
    const batch = await readPartBatch(kv, meta);
    const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch)));
    return await storeFeatureTable(kv, meta.id, buildFeatureTable(batch, (i) => rows[i]));
  };
  return backfillEventParts(kv, org, env, {
    has: (id) => hasFeatureTable(kv, id),
    add,
    remove: (id) => deleteFeatureTable(kv, id),
  }, { ...o, maxParts: o.maxParts ?? 8 });
}
