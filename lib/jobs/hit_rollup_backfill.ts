/**
 * Rollups for hit parts written before hit rollups existed (or of an older version): each compaction run of
 * an environment's hits adds them to a few such parts after its own work, under its lease (so no merge
 * removes a part while its rollup is written), until every part has one. Resumable by nature: what is done
 * is what has a rollup entry of the current version. Until then questions scan the hours of those parts.
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { listParts, partColumns, readBlob } from "../parts/store.ts";
import { buildHitRollup } from "../query/hit_rollup/build.ts";
import { deleteHitRollup, hasHitRollup, writeHitRollup } from "../query/hit_rollup/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface HitBackfillOptions {
  /** parts given a rollup per call at most (default 16: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** Adds rollups to hit parts of one environment that have none; answers how many, and how many remain. */
export async function backfillHitRollups(
  deps: Deps,
  org: string,
  env: EnvName,
  o: HitBackfillOptions = {},
): Promise<{ parts: number; remaining: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "hit")) {
    if (!(await hasHitRollup(kv, p.meta.id))) missing.push(p.meta);
  }
  let done = 0;
  for (const meta of missing) {
    if (done >= (o.maxParts ?? 16) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    const columns = await partColumns(kv, meta);
    const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
    // the part's verification column is the outcome when it was built: rows still pending keep their ids
    await writeHitRollup(kv, meta.id, buildHitRollup(batch));
    // a part merged away meanwhile (only outside a compaction run): its rollup goes with it
    if (!(await kv.get(keys.part(org, env, "hit", meta.id))).value) await deleteHitRollup(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done };
}
