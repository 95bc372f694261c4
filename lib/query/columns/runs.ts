/**
 * Per session run of a batch: the sums a question adds when it takes a run whole (page-leave figures,
 * rage clicks), and whether a mask sets all, some or none of a run's rows.
 */
import { AUTO, type EvBatch, LEAVE, PV, RAGE } from "./batch.ts";

export interface RunSums {
  engSum: Float64Array;
  engN: Uint32Array;
  depthSum: Float64Array;
  depthN: Uint32Array;
  rage: Uint32Array;
}
const runSumsOf = new WeakMap<EvBatch, RunSums>();

/** Per session run: engagement and scroll depth sums of its page leaves, and its rage clicks. */
export function runSums(e: EvBatch): RunSums {
  let r = runSumsOf.get(e);
  if (r) return r;
  const n = e.runSes.length, starts = e.runStart, bits = e.bits, eng = e.eng, depth = e.depth;
  r = {
    engSum: new Float64Array(n),
    engN: new Uint32Array(n),
    depthSum: new Float64Array(n),
    depthN: new Uint32Array(n),
    rage: new Uint32Array(n),
  };
  for (let k = 0; k < n; k++) {
    for (let i = starts[k]; i < starts[k + 1]; i++) {
      if (bits[i] & PV) continue;
      if (bits[i] & LEAVE) {
        const x = eng[i], y = depth[i];
        if (x === x) {
          r.engSum[k] += x;
          r.engN[k]++;
        }
        if (y === y) {
          r.depthSum[k] += y;
          r.depthN[k]++;
        }
      } else if ((bits[i] & (AUTO | RAGE)) === (AUTO | RAGE)) r.rage[k]++;
    }
  }
  runSumsOf.set(e, r);
  return r;
}

const fullRunsOf = new WeakMap<Uint8Array, Uint8Array>();

export const NO_ROWS = 0, SOME_ROWS = 1, ALL_ROWS = 2;

/**
 * Per session run: ALL_ROWS when every row of the run is set in the mask (the run is summed whole),
 * NO_ROWS when none is (the run is skipped), SOME_ROWS otherwise.
 */
export function fullRuns(e: EvBatch, mask: Uint8Array): Uint8Array {
  let out = fullRunsOf.get(mask);
  if (out) return out;
  const starts = e.runStart;
  out = new Uint8Array(e.runSes.length);
  for (let k = 0; k < out.length; k++) {
    let set = 0;
    for (let i = starts[k]; i < starts[k + 1]; i++) set += mask[i];
    out[k] = set === 0 ? NO_ROWS : set === starts[k + 1] - starts[k] ? ALL_ROWS : SOME_ROWS;
  }
  fullRunsOf.set(mask, out);
  return out;
}
