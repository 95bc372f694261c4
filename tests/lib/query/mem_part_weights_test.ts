/**
 * The part cache weighs a kept part by what it holds now (columns/batch.ts heldBytes: the columns read so
 * far, the stored bytes of those not read, row arrays, kept per-row numbers and masks), again each time a
 * question takes it, and counts the visitor and session numbering whole. Weighed as if every column were
 * decoded (`EvBatch.bytes`), a 1M-event month's parts counted 162-170 MB for ~100-120 held, and what
 * questions keep beside them (a cohort's members, session facts) was pushed out and made again by every
 * question under a cohort (warm 390-486 ms, its resident set +300 MB in a fresh process).
 */
import assert from "node:assert/strict";
import { heldBytes } from "../../../lib/query/columns/batch.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { sessionFacts } from "../../../lib/query/scan/session_facts.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const DAY = 86_400_000;

Deno.test("part weights: parts that hold less than they would decoded to stay in a budget their full size would pass", async () => {
  const deps = await testDeps();
  try {
    // two days: two parts, with a few properties (columns a question here never reads)
    await store(deps.kv, {
      events: Array.from({ length: 600 }, (_, i) =>
        ev({
          id: `e${i}`,
          received_at: T0 + (i % 2) * DAY + i * 60_000,
          anonymous_id: `v${i % 40}`,
          session_id: `s${i % 70}`,
          path: `/p${i % 9}`,
          properties: { plan: `plan-${i % 6}`, step: i % 11 },
        })),
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: T0 - DAY,
      to: T0 + 2 * DAY,
      timezone: "UTC",
    };
    const source = (partCacheBytes: number) =>
      new Source({ ...deps, config: { ...deps.config, partCacheBytes } });

    // what the parts would weigh decoded whole, and what they hold once a question has read them
    const roomy = source(64 << 20);
    const measured = await new ScanContexts(roomy).of(scope);
    sessionFacts(measured);
    assert.equal(measured.batches.length, 2);
    const whole = measured.batches.reduce((s, b) => s + b.bytes, 0);
    const held = measured.batches.reduce((s, b) => s + heldBytes(b), 0);
    const numbering = roomy.numberingBytes();
    assert.ok(held < whole / 2, `held ${held} of ${whole}`);

    // a budget the parts' real size fits with room to spare, their decoded-whole size does not
    const capacity = held + numbering + Math.floor((whole - held) / 2);
    assert.ok(whole + numbering > capacity);
    const cache = source(capacity), scans = new ScanContexts(cache);
    const first = await scans.of(scope);
    sessionFacts(first);
    const again = await scans.of(scope);
    again.batches.forEach((b, i) => assert.equal(b, first.batches[i], `part ${i} kept, not read again`));
    assert.equal(again.memo, first.memo, "what the first question derived is kept beside the parts");
    assert.ok(cache.heldBytes <= capacity, "the budget is honoured");
    assert.ok(cache.heldBytes >= held + numbering, "the parts and the numbering are counted");
  } finally {
    deps.kv.close();
  }
});

Deno.test("part weights: a part is weighed again when a question takes it, with the columns read since", async () => {
  const deps = await testDeps();
  try {
    await store(deps.kv, {
      events: Array.from({ length: 300 }, (_, i) =>
        ev({
          id: `e${i}`,
          received_at: T0 + i * 60_000,
          anonymous_id: `v${i % 20}`,
          session_id: `s${i % 30}`,
          path: `/p${i % 5}`,
          properties: { plan: `plan-${i % 4}` },
        })),
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const scope: Scope = { org: "org1", env: "production", from: T0 - DAY, to: T0 + DAY, timezone: "UTC" };
    const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes: 64 << 20 } });
    const scans = new ScanContexts(source);
    const first = await scans.of(scope);
    assert.equal(first.batches.length, 1);
    const counted = source.cacheBytes, loaded = heldBytes(first.batches[0]);
    // a question reads columns the load did not
    for (const name of ["page", "browser", "country", "p:plan"]) {
      assert.ok(first.batches[0].b.cols[name], name);
    }
    const grown = heldBytes(first.batches[0]) - loaded;
    assert.ok(grown > 0, "reading columns adds to what the part holds");
    assert.equal(source.cacheBytes, counted, "not weighed again until a question takes it");
    await scans.of(scope);
    // (and with what the first question kept with it after its load: scope masks)
    assert.ok(source.cacheBytes - counted >= grown, "weighed again with the columns read since");
  } finally {
    deps.kv.close();
  }
});
