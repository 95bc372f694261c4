/**
 * The loop every per-part table's backfill runs (Web Vitals, property rollups, feature tables, step columns):
 * the environment's event parts without the table (or with one of an older version), a few per call within a
 * time budget, each table written from the part and deleted again when the part was merged away meanwhile
 * (only outside a compaction run: inside one, its lease keeps merges out).
 */
import { listParts, type PartMeta } from "../parts/store.ts";
import type { EnvName } from "../store/records.ts";
import { keys } from "../store/keys.ts";

export interface PartBackfillOptions {
  /** parts given a table per call at most */
  maxParts?: number;
  /** stop starting new parts after this long (ms; default 20 s) */
  budgetMs?: number;
}

/** How one table is checked for, written from its part (answering the bytes stored) and deleted. */
export interface PartTable {
  has: (partId: string) => Promise<boolean>;
  add: (meta: PartMeta) => Promise<number>;
  remove: (partId: string) => Promise<void>;
}

/** Adds the table to event parts of one environment that lack it; answers how many, how many remain, bytes. */
export async function backfillEventParts(
  kv: Deno.Kv,
  org: string,
  env: EnvName,
  table: PartTable,
  o: PartBackfillOptions & { maxParts: number },
): Promise<{ parts: number; remaining: number; bytes: number }> {
  const t0 = performance.now();
  const missing: PartMeta[] = [];
  for (const p of await listParts(kv, org, env, "ev")) {
    if (!(await table.has(p.meta.id))) missing.push(p.meta);
  }
  let done = 0, bytes = 0;
  for (const meta of missing) {
    if (done >= o.maxParts || performance.now() - t0 > (o.budgetMs ?? 20_000)) break;
    bytes += await table.add(meta);
    if (!(await kv.get(keys.part(org, env, "ev", meta.id))).value) await table.remove(meta.id);
    done++;
  }
  return { parts: done, remaining: missing.length - done, bytes };
}
