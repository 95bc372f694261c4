/**
 * Step columns for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge removes
 * a part while its column is written), until every part has one. Resumable by nature: what is done is what
 * has an entry of the current version. Until then funnels stream those periods' parts (funnel_stream.ts).
 */
import type { Deps } from "../deps.ts";
import { columnRange, decodeBatch } from "../parts/codec.ts";
import { partColumns, type PartMeta, readRange } from "../parts/store.ts";
import { STEP_COLUMN_FIELDS } from "../query/step_column/build.ts";
import { deleteStepColumn, hasStepColumn, writeStepColumn } from "../query/step_column/store.ts";
import type { EnvName } from "../store/records.ts";
import { backfillEventParts, type PartBackfillOptions } from "./part_backfill.ts";

/** Adds step columns to event parts of one environment that have none (8 a call by default); answers how many, and how many remain. */
export function backfillStepColumns(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: PartBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const add = async (meta: PartMeta) => {
    // only the columns the step column is made of
    const columns = await partColumns(kv, meta);
    const only = (c: string) => STEP_COLUMN_FIELDS.has(c);
    const { from, to } = columnRange(columns, only);
    const { base, bytes: range } = await readRange(kv, meta, from, to);
    const batch = await decodeBatch({ n: meta.rows, columns }, range, only, base);
    return await writeStepColumn(kv, meta.id, batch, org, env);
  };
  return backfillEventParts(kv, org, env, {
    has: (id) => hasStepColumn(kv, id),
    add,
    remove: (id) => deleteStepColumn(kv, id),
  }, { ...o, maxParts: o.maxParts ?? 8 });
}
