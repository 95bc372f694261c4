/** What a group-by hands the passes: a group number for every matching row, and each group's key. */
import type { EvBatch } from "../columns/batch.ts";
import type { KeyValue } from "../types.ts";

/** Where each matching row's group comes from: gids[b][i] for batch b, row i (rows with masks[b][i] set). */
export interface GroupSource {
  gids: Int32Array[];
  /** number of groups, and a group's key (made only for groups with rows: a field may have many values) */
  size: number;
  key: (g: number) => Record<string, KeyValue>;
  /** per session run in visitor order: the run's group when all its rows share one, else -1 */
  runGids?: Int32Array;
}

const zeros = new WeakMap<EvBatch, Int32Array>();
const zeroIdArrays = new WeakSet<Int32Array>();

/** Group 0 for every row: a question without breakdown. */
export const zeroIds = (e: EvBatch) => {
  let z = zeros.get(e);
  if (!z) {
    zeros.set(e, z = new Int32Array(e.n));
    zeroIdArrays.add(z);
  }
  return z;
};

/** One group of every row: the totals (counted by totals_loop.ts, without per-group arrays). */
export const isTotals = (gs: GroupSource) => gs.size === 1 && gs.gids.every((g) => zeroIdArrays.has(g));
