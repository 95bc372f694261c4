/**
 * The crawler hits', Web Vitals' and event properties' rollups read from KV let go of their chunks once
 * copied into a section and of the section's stored bytes once inflated, and the step columns of their chunks
 * once a section is decoded from them (packed_arrays.ts `release`): freed
 * at once instead of waiting, dead, for V8's next full collection while a question reads a month of parts
 * (at 10M events crawl coverage, performance, events, funnel and paths each left tens of MB so). What is
 * read is what a
 * read without this gives.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { readHitRollupHead, readHitRollupHours } from "../../../lib/query/hit_rollup/store.ts";
import { readVitals, vitalsEntry } from "../../../lib/query/vitals/store.ts";
import { readPropEntry, readPropSection } from "../../../lib/query/prop_rollup/store.ts";
import {
  readStepEntries,
  readStepSection,
  readStepSessions,
  SESSIONS,
} from "../../../lib/query/step_column/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { HitRollupEntry } from "../../../lib/query/hit_rollup/store.ts";
import { harness } from "../../tools/harness.ts";
import { hit, store } from "./fixtures.ts";

/** What `f` detached (byte lengths of the buffers transferred), and what it answered. */
async function detaching<T>(f: () => Promise<T>): Promise<{ got: T; sizes: number[] }> {
  const transfer = ArrayBuffer.prototype.transfer;
  const sizes: number[] = [];
  ArrayBuffer.prototype.transfer = function (this: ArrayBuffer, n?: number) {
    sizes.push(this.byteLength);
    return transfer.call(this, n);
  };
  try {
    return { got: await f(), sizes };
  } finally {
    ArrayBuffer.prototype.transfer = transfer;
  }
}

Deno.test("hit, vitals, property rollups and step columns: stored bytes read are detached once decoded, the reads unchanged", async () => {
  const h = await harness({ visitors: 150 });
  try {
    const { kv } = h.deps;
    await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
    const start = Date.parse("2026-11-16T00:00:00Z");
    const hits = Array.from({ length: 200 }, (_, i) =>
      hit({
        id: `s-${i}`,
        org: h.t.org,
        timestamp: start + i * 17 * 60_000,
        received_at: start + i * 17 * 60_000,
        path: ["/", "/a", "/b"][i % 3],
        crawler: i % 2 ? "GPTBot" : "ClaudeBot",
      }));
    await store(kv, { hits });
    await compact(h.deps, h.t.org, "production", "hit", { graceMs: 0 });

    const ev = (await listParts(kv, h.t.org, "production", "ev")).map((p) => p.meta.id);
    let vitals = 0, props = 0;
    for (const id of ev) {
      const ve = await vitalsEntry(kv, id);
      if (ve) {
        const plain = await readVitals(kv, id);
        const { got, sizes } = await detaching(() => readVitals(kv, id));
        assert.ok(got && plain);
        assert.ok(sizes.includes(ve.bytes), `vitals: ${ve.bytes} stored, detached ${sizes}`);
        assert.deepEqual(got, plain);
        vitals++;
      }
      const pe = await readPropEntry(kv, id);
      for (const name of Object.keys(pe?.secs ?? {})) {
        const plain = await readPropSection(kv, id, pe!, name);
        const { got, sizes } = await detaching(() => readPropSection(kv, id, pe!, name));
        assert.ok(
          sizes.includes(pe!.secs[name][1]),
          `properties: ${pe!.secs[name][1]} stored, detached ${sizes}`,
        );
        assert.deepEqual(got, plain);
        props++;
      }
    }
    assert.ok(vitals > 0 && props > 0, `vitals ${vitals}, property sections ${props}`);

    // step columns: each chunk a section is decoded from
    const entries = await readStepEntries(kv, ev);
    let steps = 0;
    for (const [k, e] of entries.entries()) {
      if (!e) continue;
      for (const [name, [, stored, chunks]] of Object.entries(e.secs)) {
        const read = (): Promise<unknown> =>
          name === SESSIONS ? readStepSessions(kv, ev[k], e) : readStepSection(kv, ev[k], e, name);
        const plain = await read();
        const { got, sizes } = await detaching<unknown>(read);
        assert.equal(sizes.length, chunks, `step column ${name}: ${chunks} chunks, detached ${sizes}`);
        assert.equal(sizes.reduce((a, b) => a + b, 0), stored);
        assert.deepEqual(got, plain);
        steps++;
      }
    }
    assert.ok(steps > 0, "step column sections read");

    const hitParts = (await listParts(kv, h.t.org, "production", "hit")).map((p) => p.meta.id);
    assert.ok(hitParts.length > 0);
    for (const id of hitParts) {
      const e = (await kv.get<HitRollupEntry>(keys.hitRollup(id))).value!;
      const plain = await readHitRollupHead(kv, id);
      const { got, sizes } = await detaching(() => readHitRollupHead(kv, id));
      assert.ok(got && plain);
      assert.ok(sizes.includes(e.head!.bytes), `hit head: ${e.head!.bytes} stored, detached ${sizes}`);
      assert.deepEqual({ ...got, header: null }, { ...plain, header: null });
      const hours = await detaching(() => readHitRollupHours(kv, id, got));
      assert.ok(hours.sizes.includes(e.bytes), `hit hours: ${e.bytes} stored, detached ${hours.sizes}`);
      assert.deepEqual(hours.got, await readHitRollupHours(kv, id, plain));
    }
  } finally {
    h.close();
  }
});
