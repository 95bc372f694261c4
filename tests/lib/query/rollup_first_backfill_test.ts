/**
 * A version-8 rollup (no first events) gets the first-events sections from the backfill, its other sections
 * left as written; until then explain-a-change's attribution is the scan's, after it the facts' first events
 * answer it, equal to the scan.
 */
import assert from "node:assert/strict";
import type { Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import { FIRST_IDS_SEC, FIRST_SEC } from "../../../lib/query/rollup/store.ts";
import {
  asOlderVersion,
  assertSectionsKept,
  backfillAll,
  DAY,
  midnightSessions,
  openSite,
  scannedAttribution,
  severalParts,
  sortedAttribution,
} from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 10 * DAY, to: NOW, timezone: "UTC" };

Deno.test("rollup backfill: a version-8 rollup gets its first events, the rest kept, then explain-a-change comes from them", async () => {
  // in a KV file, as a deployment's backfill runs
  const site = await openSite(NOW, { file: true });
  // sessions crossing midnight UTC (each in two parts), changing page and country on the way
  await site.add(midnightSessions(Date.parse("2026-11-20T00:00:00Z"), 300, 600_000, (i) => ({
    geo: { country: i % 7 ? "DE" : "FR", city: null, asn: null, as_org: null },
  })));
  await site.compact();
  // as version 8 left them: no first events
  const written = await asOlderVersion(site, await severalParts(site), 8, [FIRST_SEC, FIRST_IDS_SEC]);
  const asks: AttributionOptions[] = [
    { fields: ["page", "country", "source"], unit: "visitor", goal: { event_type: "sign_up" } },
    { fields: ["page", "country", "device_type"], unit: "session" },
  ];
  const scan = new ScanContexts(new Source(site.deps));
  for (const o of asks) assert.equal(await site.rollups().attribution(scope, o), null);
  await backfillAll(site);
  await assertSectionsKept(site, written);
  for (const o of asks) {
    const got = await site.rollups().attribution(scope, o);
    assert.ok(got, "answered from the first events");
    assert.deepEqual(sortedAttribution(got), await scannedAttribution(scan, scope, o));
    assert.ok(got.units > 0 && (o.unit === "session" || got.converted > 0));
  }
  await site.close();
});
