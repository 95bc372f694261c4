/**
 * A stable sort that gives the event loop turns: slices sorted one by one, then merged pairwise, `turn` asked
 * every SORT_SLICE elements (some milliseconds of sorting). Sorting 65,000 raw events at once held the loop
 * for hundreds of milliseconds (a question over a large raw tail, a merge of parts); the result is the same
 * as Array.prototype.sort's, which is stable too.
 */
import type { Turn } from "../turns.ts";

export const SORT_SLICE = 8192;

/** Sorts `items` in place and returns it. */
export async function sortInSlices<T>(items: T[], cmp: (a: T, b: T) => number, turn: Turn): Promise<T[]> {
  const steps = sortSteps(items, cmp);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await turn();
  }
}

/**
 * The same sort as steps: it pauses (yields) every SORT_SLICE elements, so a caller that is itself a build in
 * steps (lib/query/rollup/steps.ts) sorts inside them.
 */
export function* sortSteps<T>(items: T[], cmp: (a: T, b: T) => number): Generator<void, T[], void> {
  const n = items.length;
  if (n <= SORT_SLICE) return items.sort(cmp);
  for (let lo = 0; lo < n; lo += SORT_SLICE) {
    const part = items.slice(lo, lo + SORT_SLICE).sort(cmp);
    for (let i = 0; i < part.length; i++) items[lo + i] = part[i];
    yield;
  }
  let src = items, dst = new Array<T>(n);
  let since = 0;
  for (let width = SORT_SLICE; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width), hi = Math.min(n, lo + 2 * width);
      let i = lo, j = mid, k = lo;
      while (k < hi) {
        // the left run first on ties: stable
        dst[k++] = j >= hi || (i < mid && cmp(src[i], src[j]) <= 0) ? src[i++] : src[j++];
        if (++since === SORT_SLICE) {
          since = 0;
          yield;
        }
      }
    }
    [src, dst] = [dst, src];
  }
  if (src !== items) { for (let i = 0; i < n; i++) items[i] = src[i]; }
  return items;
}
