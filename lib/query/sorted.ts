/** Searches in ascending typed arrays. */

/**
 * The last position below `end` whose value is at most `x` (0 when none is): the period an instant falls in
 * from the periods' starts, the unit a row number falls in from the units' first rows.
 */
export function lastAtMost(sorted: ArrayLike<number>, x: number, end = sorted.length): number {
  let lo = 0, hi = end - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first position below `end` whose value is at least `x` (`end` when none is). */
export function firstAtLeast(sorted: ArrayLike<number>, x: number, end = sorted.length): number {
  let lo = 0, hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
