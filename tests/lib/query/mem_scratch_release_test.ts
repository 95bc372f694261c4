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

Deno.test("a list kept from its own unions frees the bits of values held sorted; answers as the scan's", async () => {
  // a bit per visitor number larger than 4 bytes a member of rare values: those are held sorted
  const { h, scope } = await site(1_500);
  try {
    // one day: rare pages, fewer than 4 bytes a member against a bit per visitor number
    const day = { ...scope, from: LAST7.to - 86_400_000 };
    const o = { metrics: ["visitors", "pageviews"] as const, breakdown: ["page" as const] };
    // a share too small to keep the period's unions (256 bytes): the kept list builds its own
    const rollups = new RollupSource(h.deps, new Source(h.deps), 1 << 10);
    // the list is built when its period's list is asked a second time
    const ask = () => rollups.answer(day, [{ ...o, metrics: [...o.metrics] }]);
    const { out: [[first], [again]], arrays } = await made(
      8,
      async () => [await ask(), await ask()],
      "rollup/unions.ts",
    );
    const [scanned] = await createEngine(h.deps).aggregateMany(day, [{ ...o, metrics: [...o.metrics] }]);
    assert.ok(first && again, "answered from rollups");
    assert.deepEqual(first.rows, scanned.rows);
    assert.deepEqual(again.rows, scanned.rows);
    // values with few visitors are held sorted, their bits freed
    // (a union's bits: one Uint8Array of a bit per visitor number per value, the raw tail's new numbers too)
    const space = await visitorCount(h.deps.kv, h.t.org, "production");
    const bits = arrays.filter((a) =>
      kind(a) === "Uint8Array" && Math.ceil(space / 8) <= size.get(a)! && size.get(a)! < Math.ceil(space / 4)
    );
    assert.ok(bits.some(detached), "bits of values held sorted freed");
    assert.ok(bits.some((b) => !detached(b)), "bits of values held as bits kept");
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
