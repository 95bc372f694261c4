/**
 * Property rollups for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge removes
 * a part while its table is written), until every part has one. Resumable by nature: what is done is what
 * has a table entry of the current version. Until then questions read those parts (prop_rollup/planner.ts).
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { partColumns, type PartMeta, readBlob } from "../parts/store.ts";
import { deletePropRollup, hasPropRollup, writePropRollup } from "../query/prop_rollup/store.ts";
import type { EnvName } from "../store/records.ts";
import { backfillEventParts, type PartBackfillOptions } from "./part_backfill.ts";

export interface PropBackfillOptions extends PartBackfillOptions {
  /** distinct values kept per (event type, key) and part (default VALUE_CAP; tests lower it) */
  cap?: number;
  /** distinct values kept merged per (event type, key) and part (default WHOLE_CAP; tests lower it) */
  wholeCap?: number;
}

/** Adds property rollups to event parts of one environment that have none (8 a call by default); answers how many, and how many remain. */
export function backfillPropRollups(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: PropBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const add = async (meta: PartMeta) => {
    const columns = await partColumns(kv, meta);
    const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
    return await writePropRollup(kv, meta.id, batch, org, env, { cap: o.cap, wholeCap: o.wholeCap });
  };
  return backfillEventParts(kv, org, env, {
    has: (id) => hasPropRollup(kv, id),
    add,
    remove: (id) => deletePropRollup(kv, id),
  }, { ...o, maxParts: o.maxParts ?? 8 });
}
