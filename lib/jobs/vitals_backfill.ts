/**
 * Web Vitals tables for event parts written before they existed (or of an older version): each compaction
 * run of an environment's events adds them to a few such parts after its own work, under its lease (so no
 * merge removes a part while its table is written), until every part has one. Resumable by nature: what is
 * done is what has an entry of the current version. Until then Web Vitals questions read those parts' rows
 * themselves (a few) or scan (lib/query/vitals/source.ts).
 */
import type { Deps } from "../deps.ts";
import { decodeBatch } from "../parts/codec.ts";
import { listParts, partColumns, readBlob } from "../parts/store.ts";
import { deleteVitals, hasVitals, partVitals, writeVitals } from "../query/vitals/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface VitalsBackfillOptions {
  /** parts given a table per call at most (default 16: a compaction run stays short) */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** Adds tables to event parts of one environment that have none; answers how many, and how many remain. */
export async function backfillVitals(
  deps: Deps,
  org: string,
  env: EnvName,
  o: VitalsBackfillOptions = {},
): Promise<{ parts: number; remaining: number; stored: number }> {
  const { kv } = deps;
  const t0 = performance.now();
  const missing = [];
  for (const p of await listParts(kv, org, env, "ev")) {
    if (!(await hasVitals(kv, p.meta.id))) missing.push(p.meta);
  }
  let done = 0, stored = 0;
  for (const meta of missing) {
    if (done >= (o.maxParts ?? 16) || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    const columns = await partColumns(kv, meta);
    const batch = await decodeBatch({ n: meta.rows, columns }, await readBlob(kv, meta));
    stored += await writeVitals(kv, meta.id, await partVitals(kv, org, env, batch));
    // a part merged away meanwhile (only outside a compaction run): its table goes with it
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) await deleteVitals(kv, meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, stored };
}
