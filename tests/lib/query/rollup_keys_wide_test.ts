/**
 * Two steps of the cold rollup read, against plain reference computations over random input:
 * - `sharedKeys` (spans.ts): a key is shared when another part holds the same (visitor, id hash); visitors with
 *   many sessions (past the per-visitor comparison's small case) included.
 * - `widePiece` (wide.ts): a field's rows folded over a part's hours add the figures and union the sets of
 *   every row of a value, touchpoint and traffic kind; their kept reporters (at most 5 of each row's) folded
 *   into at most 5, as many as the rows' whole reporters up to 5 (reporters.ts).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeSet, encodeSet } from "../../../lib/parts/visitor_set.ts";
import type { Rollup } from "../../../lib/query/rollup/build.ts";
import { emptyFacts } from "../../../lib/query/rollup/pieces.ts";
import { type PartKeys, sharedKeys } from "../../../lib/query/rollup/spans.ts";
import { widePiece } from "../../../lib/query/rollup/wide.ts";
import { packReporters, REPORTERS_CAP } from "../../../lib/query/rollup/reporters.ts";

/** A part's keys, sorted by (visitor, hash) as buildSpans sorts them. */
function partKeys(list: [number, number][]): PartKeys {
  const sorted = [...list].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {
    n: sorted.length,
    vis: Uint32Array.from(sorted, (k) => k[0]),
    h: Uint32Array.from(sorted, (k) => k[1]),
    block: new Uint8Array(sorted.length),
  };
}

Deno.test("sharedKeys: a key is shared exactly when another part holds it", () => {
  const keyArb = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 40 }));
  fc.assert(
    fc.property(
      fc.array(fc.array(keyArb, { maxLength: 60 }), { minLength: 1, maxLength: 6 }),
      fc.integer({ min: 1, max: 20 }),
      (lists, space) => {
        const parts = lists.map(partKeys);
        const got = sharedKeys(parts, space);
        parts.forEach((p, i) => {
          for (let x = 0; x < p.n; x++) {
            const want = parts.some((q, j) =>
              j !== i &&
              Array.from({ length: q.n }).some((_, y) => q.vis[y] === p.vis[x] && q.h[y] === p.h[x])
            );
            assert.equal(got[i][x] === 1, want, `part ${i} key (${p.vis[x]}, ${p.h[x]})`);
          }
        });
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("sharedKeys: a visitor with hundreds of sessions in several parts", () => {
  const a: [number, number][] = [], b: [number, number][] = [];
  for (let s = 0; s < 500; s++) a.push([3, s * 2]);
  for (let s = 0; s < 300; s++) b.push([3, s * 3]);
  b.push([4, 7]);
  const [ga, gb] = sharedKeys([partKeys(a), partKeys(b)], 5);
  const pa = partKeys(a), pb = partKeys(b);
  for (let x = 0; x < pa.n; x++) assert.equal(ga[x], pa.h[x] % 6 === 0 && pa.h[x] < 900 ? 1 : 0);
  for (let x = 0; x < pb.n; x++) assert.equal(gb[x], pb.vis[x] === 3 && pb.h[x] % 6 === 0 ? 1 : 0);
});

interface Row {
  hour: number;
  value: number;
  tp: number;
  traffic: number;
  events: number;
  visitors: number[];
  viewers: number[];
  /** the row's reporters, all of them (the piece keeps 5 at most, as a rollup does) */
  reporters?: number[];
}

function piece(rows: Row[]): Rollup {
  const n = rows.length;
  const sets: Uint8Array[] = [];
  const visAt = new Uint32Array(n + 1), viewAt = new Uint32Array(n + 1);
  let o = 0;
  rows.forEach((r, i) => {
    const vis = encodeSet(r.visitors), view = encodeSet(r.viewers);
    visAt[i] = o;
    viewAt[i] = o + vis.length;
    o += vis.length + view.length;
    sets.push(vis, view);
  });
  visAt[n] = viewAt[n] = o;
  const all = new Uint8Array(o);
  let at = 0;
  for (const s of sets) {
    all.set(s, at);
    at += s.length;
  }
  const hours = [...new Set(rows.map((r) => r.hour))].sort((a, b) => a - b);
  return {
    n,
    hour: Uint32Array.from(rows, (r) => r.hour),
    tp: Uint16Array.from(rows, (r) => r.tp),
    traffic: Uint8Array.from(rows, (r) => r.traffic),
    field: new Uint8Array(n),
    value: Uint32Array.from(rows, (r) => r.value),
    events: Uint32Array.from(rows, (r) => r.events),
    pageviews: Uint32Array.from(rows, (r) => r.events * 2),
    rage: new Uint32Array(n),
    engN: Uint32Array.from(rows, (r) => r.events),
    scrollN: new Uint32Array(n),
    engSum: Float64Array.from(rows, (r) => r.events * 1.5),
    scrollSum: new Float64Array(n),
    visAt,
    viewAt,
    sets: all,
    ...packReporters(rows.map((r) => [...new Set(r.reporters ?? [])].slice(0, REPORTERS_CAP))),
    values: [null, "a", "b", "c"],
    tps: ["t1", "t2"],
    traffics: ["human", "bot"],
    hours: hours.map((hour) => ({ hour, min: hour * 3_600_000, max: hour * 3_600_000 + 1 })),
    facts: emptyFacts(),
  };
}

Deno.test("widePiece: each value, touchpoint and traffic kind's figures added and sets unioned over the hours", () => {
  const rowArb = fc.record({
    hour: fc.integer({ min: 100, max: 123 }),
    value: fc.integer({ min: 0, max: 3 }),
    tp: fc.integer({ min: 0, max: 1 }),
    traffic: fc.integer({ min: 0, max: 1 }),
    events: fc.integer({ min: 0, max: 9 }),
    visitors: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }),
    viewers: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }),
    // (few distinct numbers: rows of a value share reporters)
    reporters: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 8 }),
  });
  fc.assert(
    fc.property(fc.array(rowArb, { maxLength: 40 }), (rows) => {
      const w = widePiece(piece(rows));
      type Want = { events: number; engSum: number; vis: Set<number>; view: Set<number>; rep: Set<number> };
      const want = new Map<string, Want>();
      for (const r of rows) {
        const k = `${r.value}.${r.tp}.${r.traffic}`;
        const g = want.get(k) ??
          { events: 0, engSum: 0, vis: new Set<number>(), view: new Set<number>(), rep: new Set<number>() };
        r.reporters!.forEach((v) => g.rep.add(v));
        g.events += r.events;
        g.engSum += r.events * 1.5;
        r.visitors.forEach((v) => g.vis.add(v));
        r.viewers.forEach((v) => g.view.add(v));
        want.set(k, g);
      }
      assert.equal(w.n, want.size);
      const first = rows.length ? Math.min(...rows.map((r) => r.hour)) : 0;
      for (let i = 0; i < w.n; i++) {
        const g = want.get(`${w.value[i]}.${w.tp[i]}.${w.traffic[i]}`)!;
        assert.equal(w.hour[i], first);
        assert.equal(w.events[i], g.events);
        assert.equal(w.pageviews[i], g.events * 2);
        assert.equal(w.engSum[i], g.engSum);
        assert.deepEqual(decodeSet(w.sets, w.visAt[i], w.viewAt[i]), [...g.vis].sort((a, b) => a - b));
        assert.deepEqual(decodeSet(w.sets, w.viewAt[i], w.visAt[i + 1]), [...g.view].sort((a, b) => a - b));
        const rep = w.rep.length ? [...w.rep.subarray(w.repAt[i], w.repAt[i + 1])] : [];
        assert.equal(rep.length, Math.min(REPORTERS_CAP, g.rep.size));
        assert.equal(new Set(rep).size, rep.length);
        for (const v of rep) assert.ok(g.rep.has(v));
      }
    }),
    { numRuns: 200 },
  );
});
