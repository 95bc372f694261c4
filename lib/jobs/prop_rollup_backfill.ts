/**
 * Property rollups for event parts written before them (or of an older version): each compaction run of an
 * environment's events adds them to a few such parts after its own work, under its lease (so no merge removes
 * a part while its table is written), until every part has one. Resumable by nature: what is done is what
 * has a table entry of the current version. Until then questions read those parts (prop_rollup/planner.ts).
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { listParts, partColumns, readBlob } from "../parts/store.ts";
import { deletePropRollup, hasPropRollup, writePropRollup } from "../query/prop_rollup/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface PropBackfillOptions {
  /** parts given a table per call at most (default 8: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
  /** distinct values kept per (event type, key) and part (default VALUE_CAP; tests lower it) */
  cap?: number;
  /** distinct values kept merged per (event type, key) and part (default WHOLE_CAP; tests lower it) */
  wholeCap?: number;
}

/** Adds property rollups to event parts of one environment that have none; answers how many, and how many remain. */
export async function backfillPropRollups(
  deps: Pick<Deps, "kv">,
  org: string,
  env: EnvName,
  o: PropBackfillOptions = {},
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "ev")) {
    if (!(await hasPropRollup(kv, p.meta.id))) missing.push(p.meta);
  }
  let done = 0, bytes = 0;
  for (const meta of missing) {
    if (done >= (o.maxParts ?? 8) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    const columns = await partColumns(kv, meta);
    const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
    bytes += await writePropRollup(kv, meta.id, batch, org, env, { cap: o.cap, wholeCap: o.wholeCap });
    // a part merged away meanwhile (only outside a compaction run): its table goes with it
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) await deletePropRollup(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, bytes };
}
