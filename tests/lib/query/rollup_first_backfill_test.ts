/**
 * A version-8 rollup (no first events) gets the first-events sections from the backfill, its other sections
 * left as written; until then explain-a-change's attribution is the scan's, after it the facts' first events
 * answer it, equal to the scan.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { backfillRollups } from "../../../lib/jobs/rollup_backfill.ts";
import type { Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { attribution } from "../../../lib/query/sequence/attribution.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import {
  FIRST_IDS_SEC,
  FIRST_SEC,
  hasRollup,
  ROLLUP_VERSION,
  type RollupEntry,
} from "../../../lib/query/rollup/store.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const MIDNIGHT = Date.parse("2026-11-20T00:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

Deno.test("rollup backfill: a version-8 rollup gets its first events, the rest kept, then explain-a-change comes from them", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  // sessions crossing midnight UTC (each in two parts), changing page and country on the way
  const all = Array.from({ length: 300 }, (_, i) =>
    ev({
      received_at: MIDNIGHT - (i % 3) * DAY - 600_000 + i * 4_000,
      anonymous_id: `v${i % 17}`,
      session_id: `s${i % 29}`,
      sequence_no: i % 5,
      event_type: i % 4 === 0 ? "sign_up" : "$pageview",
      path: ["/", "/a", "/b"][i % 3],
      geo: { country: i % 7 ? "DE" : "FR", city: null, asn: null, as_org: null },
    }));
  await store(deps.kv, { events: all });
  await compact(deps, "org1", "production", "ev", { graceMs: 0 });
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.ok(parts.length >= 3, `${parts.length} parts`);
  const written = new Map<string, RollupEntry>();
  for (const p of parts) {
    // as version 8 left them: no first events
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    const secs = { ...entry.secs };
    delete secs[FIRST_SEC];
    delete secs[FIRST_IDS_SEC];
    written.set(p.meta.id, { ...entry, v: 8, secs });
    await deps.kv.set(keys.rollup(p.meta.id), written.get(p.meta.id));
    assert.equal(await hasRollup(deps.kv, p.meta.id), false);
  }
  const asks: AttributionOptions[] = [
    { fields: ["page", "country", "source"], unit: "visitor", goal: { event_type: "sign_up" } },
    { fields: ["page", "country", "device_type"], unit: "session" },
  ];
  const scan = new ScanContexts(new Source(deps));
  for (const o of asks) {
    assert.equal(await new RollupSource(deps, new Source(deps)).attribution(scope, o), null);
  }
  let left = 1;
  while (left) left = (await backfillRollups(deps, "org1", "production", { maxParts: 2 })).remaining;
  for (const p of parts) {
    assert.ok(await hasRollup(deps.kv, p.meta.id));
    const entry = (await deps.kv.get<RollupEntry>(keys.rollup(p.meta.id))).value!;
    assert.equal(entry.v, ROLLUP_VERSION);
    // the other sections as written (not rewritten)
    const { secs, ...rest } = written.get(p.meta.id)!;
    assert.deepEqual({ ...entry, secs: undefined, v: 8 }, { ...rest, secs: undefined });
    for (const [sec, size] of Object.entries(secs)) assert.deepEqual(entry.secs[sec], size);
  }
  for (const o of asks) {
    const got = await new RollupSource(deps, new Source(deps)).attribution(scope, o);
    assert.ok(got, "answered from the first events");
    const expected = attribution(await scan.of(scope), o);
    const order = (r: typeof got) => ({
      ...r,
      by: Object.fromEntries(
        Object.entries(r.by).map((
          [f, rows],
        ) => [f, rows.sort((a, b) => String(a.value).localeCompare(String(b.value)))]),
      ),
    });
    assert.deepEqual(order(got), order(expected));
    assert.ok(got.units > 0 && (o.unit === "session" || got.converted > 0));
  }
  deps.kv.close();
});
