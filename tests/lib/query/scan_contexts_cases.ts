/**
 * What questions over one period derive (visitor order, session facts) is kept under the parts' ids, inside
 * the part cache's budget: a part pushed out of the cache and read again finds it, and it does not hold the
 * period's batches (kept by batch objects, it held every batch of its period beyond the cache's budget).
 */
import assert from "node:assert/strict";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { derivedBytes } from "../../../lib/query/scan/ctx.ts";
import { sessionFacts } from "../../../lib/query/scan/session_facts.ts";
import { visitorOrder } from "../../../lib/query/scan/visitor_order.ts";
import { sessions } from "../../../lib/query/sequence/sessions.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const DAY = 86_400_000;

Deno.test("scan contexts: kept data survives its parts being read again, is weighed in the budget and never holds batches", async () => {
  const deps = await testDeps();
  try {
    // two days: two parts
    await store(deps.kv, {
      events: Array.from(
        { length: 800 },
        (_, i) =>
          ev({
            received_at: T0 + (i % 2) * DAY + i * 60_000,
            anonymous_id: `v${i % 30}`,
            session_id: `s${i % 45}`,
          }),
      ),
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: T0 - DAY,
      to: T0 + 2 * DAY,
      timezone: "UTC",
    };
    // a budget too small for a part, large enough for what the questions derive. A part holds 13-16 KB here
    // (weighed by what it holds: batch.ts heldBytes), the numbering ~6 KB (counted whole) and the kept data
    // ~4 KB. (With 200 events a part held ~5 KB, the kept data ~4: no budget told them apart safely. Before,
    // weighed as if decoded whole, a part weighed ~12 KB and 16 KB fitted one of them by 76 bytes, which one
    // depending on which load finished last.)
    const source = new Source({ ...deps, config: { ...deps.config, partCacheBytes: 12_288 } });
    const scans = new ScanContexts(source);
    const first = await scans.of(scope);
    assert.equal(first.batches.length, 2);
    visitorOrder(first);
    sessionFacts(first);
    const expected = sessions(first, { limit: 5 });
    assert.ok(derivedBytes(first.memo!) > 0);
    assert.equal(Object.hasOwn(first.memo!, "batches"), false, "the kept data names no batch");

    const again = await scans.of(scope);
    assert.equal(again.batches.length, 2);
    again.batches.forEach((b, i) =>
      assert.notEqual(b, first.batches[i], `part ${i} did not fit: read again`)
    );
    assert.equal(again.memo, first.memo, "what the first question derived is found under the parts' ids");
    assert.deepEqual(sessions(again, { limit: 5 }), expected);
    assert.ok(source.cacheBytes <= source.partCapacity);
    assert.ok(source.cacheBytes >= derivedBytes(again.memo!), "the kept data is counted in the budget");
  } finally {
    deps.kv.close();
  }
});
