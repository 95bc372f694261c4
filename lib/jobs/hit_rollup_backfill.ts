/**
 * Rollups for hit parts written before hit rollups existed (or of an older version): each compaction run of
 * an environment's hits adds them to a few such parts after its own work, under its lease (so no merge
 * removes a part while its rollup is written), until every part has one. Resumable by nature: what is done
 * is what has a rollup entry of the current version. A version 1 or 2 rollup becomes the current version from
 * itself (the part is not read): its entry is deleted first, so no question reads half-rewritten chunks
 * (they scan that part's hours meanwhile). Parts without a rollup, or with an unreadable one, are built from
 * the part; until then questions scan their hours.
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { listParts, partColumns, readBlob } from "../parts/store.ts";
import { buildHitRollup, type HitRollup, mergeHours } from "../query/hit_rollup/build.ts";
import {
  deleteHitRollup,
  HIT_ROLLUP_VERSION,
  hitRollupVersion,
  readHitRollup,
  writeHitRollup,
} from "../query/hit_rollup/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface HitBackfillOptions {
  /** parts given a rollup per call at most (default 16: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/**
 * Adds rollups to hit parts of one environment that have none of the current version; answers how many, how
 * many remain, and how many of them were rewritten from their stored older rollup (`fromRollup`).
 */
export async function backfillHitRollups(
  deps: Deps,
  org: string,
  env: EnvName,
  o: HitBackfillOptions = {},
): Promise<{ parts: number; remaining: number; fromRollup: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "hit")) {
    const v = await hitRollupVersion(kv, p.meta.id);
    if (v !== HIT_ROLLUP_VERSION) missing.push({ meta: p.meta, v });
  }
  let done = 0, fromRollup = 0;
  for (const { meta, v } of missing) {
    if (done >= (o.maxParts ?? 16) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    let r: HitRollup | null = null;
    if (v === 1 || v === 2) {
      const old = await readHitRollup(kv, meta.id);
      if (old) r = old.r, fromRollup++;
    }
    if (!r) {
      const columns = await partColumns(kv, meta);
      const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
      // the part's verification column is the outcome when it was built: rows still pending keep their ids
      r = buildHitRollup(batch);
    }
    // an older rollup: entry, then chunks, go first (a shorter blob must leave no chunk of the longer one)
    if (v !== null) await deleteHitRollup(kv, meta.id);
    await writeHitRollup(kv, meta.id, r, mergeHours(r));
    // a part merged away meanwhile (only outside a compaction run): its rollup goes with it
    if (!(await kv.get(keys.part(org, env, "hit", meta.id))).value) await deleteHitRollup(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, fromRollup };
}
