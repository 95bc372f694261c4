/**
 * A funnel or paths question from step columns frees each part's decoded sections once their rows are taken
 * (step_column/store.ts `letGoSections`), not at V8's next full collection: at 10M events a cold paths
 * question decodes ~200 MB of them part by part. The answers stay the streamed ones, with parts held for
 * sessions that go on, let go of at once, or read again. An array small enough to sit in node's shared
 * Buffer pool is never freed (that would detach the pool's other views): the site here is small, so the
 * pool is turned off while the questions run, and every section array is then its own buffer.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { compact } from "../../../lib/jobs/compact.ts";
import type { Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { columnFunnel } from "../../../lib/query/sequence/funnel_column.ts";
import { streamFunnel } from "../../../lib/query/sequence/funnel_stream.ts";
import { columnPaths } from "../../../lib/query/sequence/paths_column.ts";
import { streamPaths } from "../../../lib/query/sequence/paths_stream.ts";
import type { FunnelOptions, PathsOptions } from "../../../lib/query/sequence_types.ts";
import { decodeSection, encodeSection, letGoSections } from "../../../lib/query/step_column/store.ts";
import type { StepSection } from "../../../lib/query/step_column/build.ts";
import { LAST7 } from "../../tools/expect.ts";
import { harness } from "../../tools/harness.ts";

const KINDS = ["Uint8Array", "Uint16Array", "Int32Array", "Uint32Array", "Float64Array"] as const;
const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;

/** Typed arrays made with a length (not views on a buffer given) by code in `from` while `f` runs. */
async function made<T>(from: string, f: () => Promise<T>): Promise<{ out: T; arrays: ArrayBufferView[] }> {
  const g = globalThis as unknown as Record<string, unknown>;
  const real = KINDS.map((k) => g[k]);
  const arrays: ArrayBufferView[] = [];
  KINDS.forEach((k, i) => {
    const T = real[i] as new (...a: unknown[]) => ArrayBufferView;
    const wrapped: unknown = new Proxy(T, {
      construct(t, args, nt) {
        const a = Reflect.construct(t, args, nt === wrapped ? t : nt) as ArrayBufferView;
        if (typeof args[0] === "number" && args[0] > 0 && new Error().stack!.includes(from)) arrays.push(a);
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

/** A section of n rows (as step_column/build.ts makes them). */
function section(n: number): StepSection {
  const a = (k: number) => k % 97;
  return {
    et: "$pageview",
    n,
    pages: [null, "/a", "/b"],
    tps: [null, "tp1"],
    trs: [null, "human"],
    vis: Uint32Array.from({ length: n }, (_, k) => k >> 2),
    t: Float64Array.from({ length: n }, (_, k) => 1_700_000_000_000 + k * 1000),
    dt: Float64Array.from({ length: n }, (_, k) => 1_700_000_000_000 + k * 1000 + a(k)),
    seq: Float64Array.from({ length: n }, (_, k) => k & 3),
    page: Uint16Array.from({ length: n }, (_, k) => 1 + (k & 1)),
    tp: Uint16Array.from({ length: n }, () => 1),
    tr: Uint8Array.from({ length: n }, () => 1),
    row: new Uint32Array(n),
    ses: Uint32Array.from({ length: n }, (_, k) => k >> 2),
    h1: new Uint32Array(n >> 2),
    h2: new Uint32Array(n >> 2),
  };
}

Deno.test("letGoSections frees a decoded section's own buffers, not its session table nor the Buffer pool", () => {
  const big = decodeSection(encodeSection(section(40_000)));
  big.h1 = new Uint32Array(10_000);
  big.h2 = new Uint32Array(10_000);
  const own = [big.vis, big.t, big.dt, big.seq, big.page, big.tp, big.row, big.ses];
  letGoSections([big]);
  assert.ok(own.every(detached), "the section's arrays are freed");
  assert.ok(!detached(big.h1) && !detached(big.h2), "the session table is left");
  // a small section's inflated arrays sit in the shared pool: left, and the pool's other views unharmed
  const pooled = Buffer.from("kept on the pool");
  const small = decodeSection(encodeSection(section(8)));
  letGoSections([small]);
  assert.ok(!detached(small.vis), "a pooled array is not freed");
  assert.equal(pooled.toString(), "kept on the pool");
  assert.equal(Buffer.from("and the pool still works").toString(), "and the pool still works");
});

Deno.test("funnel and paths from step columns free each part's sections; answers as streamed", async () => {
  const h = await harness({ visitors: 150 });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const scope: Scope = {
    org: h.t.org,
    env: "production",
    touchpoint: h.t.touchpoint,
    from: LAST7.from - 21 * 86_400_000,
    to: LAST7.to,
    timezone: "UTC",
  };
  const scans = () => new ScanContexts(new Source(h.deps));
  const pool = Buffer.poolSize;
  try {
    // (no pool: every inflated array is a buffer of its own, as a large site's are)
    Buffer.poolSize = 0;
    const f: FunnelOptions = { steps: [{ event_type: "$pageview" }, { event_type: "sign_up" }] };
    const funnel = await made("step_column/store.ts", () => columnFunnel(scans(), scope, f, h.deps.kv));
    assert.ok(funnel.out && funnel.out.steps[0].count > 0, "answered from the step columns");
    assert.ok(funnel.arrays.length > 0, "sections were decoded");
    assert.ok(funnel.arrays.every(detached), "every decoded section array is freed");
    assert.deepEqual(await streamFunnel(scans(), scope, f), funnel.out);

    const o: PathsOptions = { anchor: { event_type: "$pageview" }, direction: "after", depth: 3 };
    const want = await streamPaths(scans(), scope, o);
    assert.ok(want.sessions > 0 && want.sequences.length > 0);
    // held for sessions that go on (default), let go of at once and read again, none held
    for (const tune of [{}, { openMs: -Infinity }, { keepBytes: 0 }, { alone: false }]) {
      const paths = await made("step_column/store.ts", () => columnPaths(scans(), scope, o, h.deps.kv, tune));
      assert.deepEqual(paths.out, want, JSON.stringify(tune));
      assert.ok(paths.arrays.length > 0, "sections were decoded");
      assert.ok(
        paths.arrays.every(detached),
        `every decoded section array is freed (${JSON.stringify(tune)})`,
      );
    }
  } finally {
    Buffer.poolSize = pool;
    h.close();
  }
});
