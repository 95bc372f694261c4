/**
 * A funnel's step rows are freed at once (sequence/step_rows.ts `free`, `reserve`): arrays outgrown while
 * rows are taken, and the walk's rows once the funnel is counted (41 bytes a row: ~22 MB a cold funnel at
 * 10M events, else left dead for V8's next full collection). The rows walked before freeing count as they
 * did; the funnel tool calls free once its rows are counted.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { StepRows, walkStepRows } from "../../../lib/query/sequence/step_rows.ts";
import { harness } from "../../tools/harness.ts";
import { LAST7 } from "../../tools/expect.ts";
import type { Scope } from "../../../lib/query/api.ts";
import type { FunnelOptions } from "../../../lib/query/sequence_types.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { columnFunnel } from "../../../lib/query/sequence/funnel_column.ts";
import { streamFunnel } from "../../../lib/query/sequence/funnel_stream.ts";

const detached = (a: ArrayBufferView) => (a.buffer as ArrayBuffer).detached;

Deno.test("step rows: outgrown arrays and freed rows are detached, the walk unchanged", () => {
  const rows = new StepRows(0);
  const first = [rows.pos, rows.t, rows.dt, rows.seq, rows.unit, rows.bits, rows.split];
  for (let k = 0; k < 3000; k++) rows.push(1000 + k, 1000 + k, k, k % 300, k % 3 === 0 ? 1 : 2, 0);
  assert.ok(first.every(detached), "arrays outgrown are freed");
  const o: FunnelOptions = { steps: [{ event_type: "a" }, { event_type: "b" }] };
  const want = walkStepRows(rows, o, []);
  assert.equal(want.steps[0].count, 100); // units 0, 3, 6, … have a first step
  const held = [rows.pos, rows.t, rows.dt, rows.seq, rows.unit, rows.bits, rows.split];
  rows.free();
  assert.ok(held.every(detached));
  assert.equal(rows.n, 0);
});

Deno.test("funnel from step columns and streamed: its rows are freed once counted", async () => {
  const h = await harness({ visitors: 120 });
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  const free = StepRows.prototype.free;
  const freed: ArrayBufferView[][] = [];
  StepRows.prototype.free = function (this: StepRows) {
    const a = [this.pos, this.t, this.unit], n = this.n;
    free.call(this);
    if (n) freed.push(a);
  };
  try {
    const scope: Scope = {
      org: h.t.org,
      env: "production",
      touchpoint: h.t.touchpoint,
      from: LAST7.from - 21 * 86_400_000,
      to: LAST7.to,
      timezone: "UTC",
    };
    const o: FunnelOptions = {
      steps: [{ event_type: "$pageview" }, { event_type: "sign_up" }],
    };
    const scans = () => new ScanContexts(new Source(h.deps));
    const got = await columnFunnel(scans(), scope, o, h.deps.kv);
    assert.ok(got, "answered from the step columns");
    assert.ok(got.steps[0].count > 0);
    assert.ok(freed.length > 0, "free was called on the walked rows");
    assert.ok(freed.every((a) => a.every(detached)));
    freed.length = 0;
    assert.deepEqual(await streamFunnel(scans(), scope, o), got);
    assert.ok(freed.length > 0 && freed.every((a) => a.every(detached)), "the streamed funnel's too");
  } finally {
    StepRows.prototype.free = free;
    h.close();
  }
});
