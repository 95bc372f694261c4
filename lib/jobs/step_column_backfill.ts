/**
 * Step columns for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge removes
 * a part while its column is written), until every part has one. Resumable by nature: what is done is what
 * has an entry of the current version. Until then funnels stream those periods' parts (funnel_stream.ts).
 */
import type { Deps } from "../deps.ts";
import { columnRange, decodeBatch } from "../parts/codec.ts";
import { listParts, partColumns, readRange } from "../parts/store.ts";
import { STEP_COLUMN_FIELDS } from "../query/step_column/build.ts";
import { deleteStepColumn, hasStepColumn, writeStepColumn } from "../query/step_column/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface StepColumnBackfillOptions {
  /** parts given a column per call at most (default 8: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** Adds step columns to event parts of one environment that have none; answers how many, and how many remain. */
export async function backfillStepColumns(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: StepColumnBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "ev")) {
    if (!(await hasStepColumn(kv, p.meta.id))) missing.push(p.meta);
  }
  let done = 0, bytes = 0;
  for (const meta of missing) {
    if (done >= (o.maxParts ?? 8) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    // only the columns the step column is made of
    const columns = await partColumns(kv, meta);
    const only = (c: string) => STEP_COLUMN_FIELDS.has(c);
    const { from, to } = columnRange(columns, only);
    const { base, bytes: range } = await readRange(kv, meta, from, to);
    const batch = await decodeBatch({ n: meta.rows, columns }, range, only, base);
    bytes += await writeStepColumn(kv, meta.id, batch, org, env);
    // a part merged away meanwhile (only outside a compaction run): its column goes with it
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) await deleteStepColumn(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, bytes };
}
