/**
 * The Web Vitals histogram buckets: every value's bucket middle is within 1% of it, middles ascend with bucket
 * ids, and the published thresholds (and every number with two significant digits) end a bucket, so a value
 * and its bucket's middle get the same rating.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { bucketOf, bucketValue, RELATIVE_ERROR } from "../../../lib/query/vitals/buckets.ts";

const THRESHOLDS = [0.1, 0.25, 200, 500, 2500, 4000];
const side = (x: number, t: number) => x <= t;

Deno.test("vitals buckets: each middle is within 1% of the values of its bucket", () => {
  fc.assert(
    fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (x) => {
      const m = bucketValue(bucketOf(x));
      assert.ok(Math.abs(m - x) <= RELATIVE_ERROR * Math.abs(x) + 1e-300, `${x} → ${m}`);
    }),
    { numRuns: 20_000 },
  );
  assert.equal(bucketValue(bucketOf(0)), 0);
});

Deno.test("vitals buckets: middles ascend with ids, and a threshold never splits a bucket", () => {
  fc.assert(
    fc.property(
      fc.double({ min: -1e9, max: 1e9, noNaN: true }),
      fc.double({ min: -1e9, max: 1e9, noNaN: true }),
      (a, b) => {
        const [x, y] = a < b ? [a, b] : [b, a];
        assert.ok(bucketOf(x) <= bucketOf(y));
        assert.ok(bucketValue(bucketOf(x)) <= bucketValue(bucketOf(y)));
      },
    ),
    { numRuns: 20_000 },
  );
  const near = (t: number) => [t, t * (1 - 1e-9), t * (1 + 1e-9), t * 0.99, t * 1.01, t - 1e-6, t + 1e-6];
  for (const t of THRESHOLDS) {
    for (const x of near(t)) assert.equal(side(bucketValue(bucketOf(x)), t), side(x, t), `${x} against ${t}`);
  }
  for (let v = 1; v < 100; v++) {
    for (const t of [v / 100, v, v * 10, v * 1000]) {
      for (const x of near(t)) {
        assert.equal(side(bucketValue(bucketOf(x)), t), side(x, t), `${x} against ${t}`);
      }
    }
  }
});

Deno.test("vitals buckets: a bucket's middle reads as the decimal it is (three significant digits), and stays in its bucket", () => {
  // CLS 0.167 and 0.0469, LCP 2950: the products of floats gave 0.16699999999999998 and 0.046900000000000004
  assert.equal(bucketValue(bucketOf(0.1665)), 0.167);
  assert.equal(bucketValue(bucketOf(0.04685)), 0.0469);
  assert.equal(bucketValue(bucketOf(2953)), 2950);
  for (let i = 0; i < 20_000; i++) {
    const x = Math.exp((Math.random() - 0.5) * 40);
    const mid = bucketValue(bucketOf(x));
    assert.ok(
      mid.toPrecision(3) === String(Number(mid.toPrecision(3))) || Number(mid.toPrecision(3)) === mid,
      `${mid}`,
    );
    assert.equal(Number(mid.toPrecision(3)), mid, `${x} -> ${mid}`);
    assert.equal(bucketOf(mid), bucketOf(x), `the middle of ${x}'s bucket is in it`);
  }
});

Deno.test("vitals buckets: every bucket's middle is the double its decimal (2m - 1)·10^e / 100 reads as", () => {
  // bucketValue computes the common decades by one exact product or division, the rest by printing and parsing
  // (decades of normal doubles: below, the float product has lost digits already)
  for (let e = -300; e <= 300; e++) {
    for (let m = 51; m <= 500; m++) {
      const id = (e + 400) * 512 + m, want = Number(`${2 * m - 1}e${e - 2}`);
      assert.equal(bucketValue(id), want, `decade ${e}, step ${m}`);
      assert.equal(bucketValue(-id), -want, `decade ${e}, step ${m}, negative`);
    }
  }
});
