/**
 * The histogram buckets Web Vitals values are counted in. Each power of ten (10^e, 10^(e+1)] is cut into
 * steps of 10^e / 50: bucket m holds ((m - 1)·step, m·step] for m = 51…500, so a bucket is at most 2% of its
 * lower edge wide, and its middle, the value an answer gives for it, is within 1% of every value in it.
 * Every number with two significant digits is an edge (2500, 4000, 200, 500, 0.1, 0.25: the published
 * thresholds), and a bucket ends at its upper edge included, so the rating of a value by such thresholds
 * (good up to and including the first) is the same as the rating of its bucket's middle: shares are exact.
 * Zero is a bucket of its own (exact), a negative value mirrors its magnitude.
 */

/** The largest relative error of a bucket's middle against any value in it. */
export const RELATIVE_ERROR = 0.01;

const STEPS = 50;
/** id = (decade + OFFSET) · SPAN + m: every finite double's decade (-324…308) gives a positive id below 2^19. */
const OFFSET = 400, SPAN = 512;

const pow10 = (e: number) => (e >= 0 ? 10 ** e : 1 / 10 ** -e);

/** The bucket id of a finite number (0 for zero, negative for negative numbers). */
export function bucketOf(x: number): number {
  if (x === 0) return 0;
  const a = Math.abs(x);
  let e = Math.floor(Math.log10(a));
  let p = pow10(e);
  if (a <= p) p = pow10(--e); // an exact power of ten ends the decade below
  else if (a > 10 * p) p = pow10(++e);
  const q = (a * STEPS) / p;
  let m = Math.round(q);
  // a value on an edge (up to the rounding of the division) belongs to the bucket it ends
  if (Math.abs(q - m) > 1e-12 * q) m = Math.ceil(q);
  if (m <= STEPS) {
    e--;
    m = 10 * STEPS;
  } else if (m > 10 * STEPS) m = 10 * STEPS;
  const id = (e + OFFSET) * SPAN + m;
  return x < 0 ? -id : id;
}

/** 10^k for k = 0…22, each exact (the powers of ten a double holds exactly), read from their decimals. */
const EXACT_POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/** The middle of a bucket: the value answers give for its members. */
export function bucketValue(id: number): number {
  if (id === 0) return 0;
  const a = Math.abs(id);
  const e = Math.floor(a / SPAN) - OFFSET, m = a % SPAN;
  // (2m - 1)·10^e / 100 with m = 51…500: three significant digits, as the double nearest that decimal (0.167,
  // not 0.16699999999999998, which the product of floats gives). Where 10^|e - 2| is exact, one exact product
  // or one division of exact numbers (rounded once) is that double; printing and parsing it, as elsewhere,
  // cost ~200 ns a bucket, most of a warm behavior_performance answer at 10M events.
  const d = 2 * m - 1;
  let v: number;
  if (e >= 2 && e <= 14) v = d * EXACT_POW10[e - 2]; // below 10^15: exact
  else if (e < 2 && e >= -20) v = d / EXACT_POW10[2 - e];
  else v = Number((((m - 0.5) * pow10(e)) / STEPS).toPrecision(3));
  return id < 0 ? -v : v;
}
