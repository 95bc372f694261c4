/**
 * Feature tables for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge
 * removes a part while its table is written), until every part has one. Resumable by nature: what is done is
 * what has a table entry of the current version. Until then questions read those parts
 * (feature_rollup/planner.ts). Reads only the columns a table needs.
 */
import type { Deps } from "../deps.ts";
import { listParts } from "../parts/store.ts";
import { numberVisitors } from "../parts/visitor_numbers.ts";
import { buildFeatureTable } from "../query/feature_rollup/build.ts";
import { readPartBatch } from "../query/feature_rollup/planner.ts";
import { deleteFeatureTable, hasFeatureTable, storeFeatureTable } from "../query/feature_rollup/store.ts";
import { batchVisitors, rowVisitors } from "../query/rollup/build.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface FeatureBackfillOptions {
  /** parts given a table per call at most (default 8: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** Adds feature tables to event parts of one environment that have none; answers how many, and how many remain. */
export async function backfillFeatureTables(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: FeatureBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "ev")) {
    if (!(await hasFeatureTable(kv, p.meta.id))) missing.push(p.meta);
  }
  let done = 0, bytes = 0;
  for (const meta of missing) {
    if (done >= (o.maxParts ?? 8) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    const batch = await readPartBatch(kv, meta);
    const rows = rowVisitors(batch, await numberVisitors(kv, org, env, batchVisitors(batch)));
    bytes += await storeFeatureTable(kv, meta.id, buildFeatureTable(batch, (i) => rows[i]));
    // a part merged away meanwhile (only outside a compaction run): its table goes with it
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) await deleteFeatureTable(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, bytes };
}
