/**
 * Arrays a rollup question makes for itself alone are freed when it is done with them (rollup/let_go.ts), not
 * left dead for V8's next full collection (at 10M events: retention's marks ~15 MB, event properties' ~19 MB,
 * the overview's and crawl coverage's unions held sorted ~13 MB, the shared-key search's table ~4 MB). Each
 * check records the typed arrays made while a question runs and asks that the scratch ones are detached, with
 * the answers the same as the scan's (a small site: the engine scans it) or the plain reference's.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { createEngine } from "../../../lib/query/api.ts";
import type { Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { propAnswers } from "../../../lib/query/prop_rollup/planner.ts";
import { type PartKeys, sharedKeys } from "../../../lib/query/rollup/spans.ts";
import { visitorCount } from "../../../lib/parts/visitor_numbers.ts";
import { LAST7 } from "../../tools/expect.ts";
import { harness } from "../../tools/harness.ts";

const KINDS = ["Uint8Array", "Int32Array", "Uint32Array"] as const;

/**
 * Typed arrays made (not views on a buffer given) of at least `min` elements while `f` runs (`from`: by code in
 * that file), and their sizes.
 */
const size = new WeakMap<ArrayBufferView, number>();
async function made<T>(
  min: number,
  f: () => Promise<T>,
  from = "",
): Promise<{ out: T; arrays: ArrayBufferView[] }> {
  const g = globalThis as unknown as Record<string, unknown>;
  const real = KINDS.map((k) => g[k]);
  const arrays: ArrayBufferView[] = [];
  KINDS.forEach((k, i) => {
    const T = real[i] as new (...a: unknown[]) => ArrayBufferView;
    const wrapped: unknown = new Proxy(T, {
      construct(t, args, nt) {
        const a = Reflect.construct(t, args, nt === wrapped ? t : nt) as ArrayBufferView;
        if (typeof args[0] === "number" && args[0] >= min && (!from || new Error().stack!.includes(from))) {
          arrays.push(a);
          size.set(a, a.byteLength);
        }
        return a;
      },
    });
    g[k] = wrapped;
  });
  try {
    return { out: await f(), arrays };
  } finally {
    KINDS.forEach((k, i) => (g[k] = real[i]));
  }
}
const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;
const kind = (a: ArrayBufferView) => a.constructor.name;

async function site(visitors = 150) {
  const h = await harness({ visitors });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const scope: Scope = {
    org: h.t.org,
    env: "production",
    touchpoint: h.t.touchpoint,
    from: LAST7.from - 14 * 86_400_000,
    to: LAST7.to,
    timezone: "UTC",
  };
  return { h, scope };
}

Deno.test("retention from rollups frees its marks by visitor number; the answer is the scan's", async () => {
  const { h, scope } = await site();
  try {
    const o = { period: "week" as const };
    const { out, arrays } = await made(
      64,
      () => new RollupSource(h.deps, new Source(h.deps)).retention(scope, o),
    );
    assert.ok(out, "answered from rollups");
    assert.deepEqual(out, await createEngine(h.deps).retention(scope, o));
    const marks = arrays.filter((a) => kind(a) === "Uint32Array");
    assert.ok(marks.length, "marks were made");
    assert.ok(marks.every(detached), "every mark array freed");
  } finally {
    h.close();
  }
});

Deno.test("a kept list's own unions: one scratch bitmap freed once built, no bitmap for values held sorted; answers as the scan's", async () => {
  // a bit per visitor number larger than 4 bytes a member of rare values: those are held sorted
  const { h, scope } = await site(1_500);
  try {
    // a day and the week: values with fewer visitors than 4 bytes a member against a bit per visitor number
    // (all of the day's), and with more (the week's most viewed pages)
    // sorted by pageviews: no union is counted while the parts are read, the kept list makes its own
    const o = { metrics: ["pageviews", "visitors"] as const, breakdown: ["page" as const] };
    const rollups = new RollupSource(h.deps, new Source(h.deps));
    // (built by the second ask: kept_lists.ts KeptListBuild, each value's union in one scratch in turn)
    rollups.backgroundLists = false;
    const space = await visitorCount(h.deps.kv, h.t.org, "production");
    const words = Math.ceil(space / 32);
    let dense = 0, sparse = 0;
    for (const period of [{ ...scope, from: LAST7.to - 86_400_000 }, scope]) {
      const ask = () => rollups.answer(period, [{ ...o, metrics: [...o.metrics] }]);
      const { out: [[first], [again]], arrays } = await made(
        8,
        async () => [await ask(), await ask()],
        "rollup/kept_lists.ts",
      );
      const [scanned] = await createEngine(h.deps).aggregateMany(period, [{ ...o, metrics: [...o.metrics] }]);
      assert.ok(first && again, "answered from rollups");
      assert.deepEqual(first.rows, scanned.rows);
      assert.deepEqual(again.rows, scanned.rows);
      // the scratch: one bit per visitor number, freed once the list is built
      const scratch = arrays.filter((a) => kind(a) === "Int32Array" && size.get(a)! >= words * 4);
      assert.equal(scratch.length, 1, "one scratch for every value");
      assert.ok(detached(scratch[0]), "the scratch freed");
      // a bitmap of their own only for values held as bits (as many visitors as words of bits, or more), kept
      const bits = arrays.filter((a) => kind(a) === "Uint8Array" && size.get(a)! >= words * 4);
      const held = scanned.rows.filter((r) => (r.metrics.visitors ?? 0) >= words).length;
      assert.equal(bits.length, held, "no bitmap for values held sorted");
      assert.ok(bits.every((b) => !detached(b)), "bits of values held as bits kept");
      dense += held;
      sparse += scanned.rows.length - held;
    }
    assert.ok(dense > 0 && sparse > 0, "values of both kinds");
    assert.deepEqual(rollups.listBuilds, { background: 0, inAnswer: 2 });
    assert.equal(rollups.listsFromKept, 2);
  } finally {
    h.close();
  }
});

Deno.test("event properties from property rollups free their marks by visitor number", async () => {
  const { h, scope } = await site();
  try {
    const s = { ...scope, filters: [{ field: "event_type" as const, op: "eq" as const, value: "purchase" }] };
    const asks = [{
      metrics: ["visitors", "events"] as ("visitors" | "events")[],
      breakdown: ["prop:plan" as const],
    }];
    const props = propAnswers(h.deps, new Source(h.deps), 8 << 20);
    const { out, arrays } = await made(64, () => props.aggregate(s, asks));
    assert.ok(out, "answered from property rollups");
    assert.deepEqual(out, await createEngine(h.deps).aggregateMany(s, asks));
    const marks = arrays.filter((a) => kind(a) === "Int32Array");
    assert.ok(marks.length, "marks were made");
    assert.ok(marks.every(detached), "every mark array freed");
  } finally {
    h.close();
  }
});

Deno.test("the shared-key search frees its table; the flags are unchanged", async () => {
  const part = (pairs: [number, number][]): PartKeys => ({
    n: pairs.length,
    vis: Uint32Array.from(pairs, (p) => p[0]),
    h: Uint32Array.from(pairs, (p) => p[1]),
    block: new Uint8Array(pairs.length),
  });
  const a = part(Array.from({ length: 3_000 }, (_, i) => [i * 7, 5] as [number, number]));
  const b = part(Array.from({ length: 3_000 }, (_, i) => [i * 3, 5] as [number, number]));
  const { out, arrays } = await made(1_024, () => Promise.resolve(sharedKeys([a, b], 30_000)));
  // a key is shared when the other part holds it
  const inA = new Set(a.vis), inB = new Set(b.vis);
  assert.deepEqual([...out[0]], [...a.vis].map((v) => inB.has(v) ? 1 : 0));
  assert.deepEqual([...out[1]], [...b.vis].map((v) => inA.has(v) ? 1 : 0));
  const table = arrays.filter((x) => kind(x) === "Int32Array");
  assert.ok(table.length >= 5, "a table was made");
  assert.ok(table.every(detached), "the table freed");
  assert.ok(out.every((f) => !detached(f)), "the flags kept");
});
