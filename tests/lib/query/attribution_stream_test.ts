/**
 * Attribution streamed part by part (sequence/attribution_stream.ts) equals the scan over all batches: units
 * (visitors or sessions) under their first event's values, pageviews, bounces, conversions and distinct
 * visitors per value, over sessions crossing midnight, late parts and a raw tail, with filters and a goal.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { attribution } from "../../../lib/query/sequence/attribution.ts";
import { scanAttribution, streamAttribution } from "../../../lib/query/sequence/attribution_stream.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import { eventArb, filterArb, streamSite } from "./stream_fixtures.ts";

Deno.test("attribution streamed part by part equals the scan, with parts, late parts and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      fc.constantFrom<"visitor" | "session">("visitor", "session"),
      fc.boolean(),
      fc.boolean(),
      (first, late, tail, filters, unit, goal, visitors) =>
        streamSite(first, late, tail, filters, async ({ scope, tiny, roomy }) => {
          const o: AttributionOptions = {
            fields: ["source", "page", "country"],
            unit,
            visitors,
            ...(goal ? { goal: { event_type: "sign_up" } } : {}),
          };
          const expected = attribution(await roomy.of(scope), o);
          // (a site whose events are all bots' has no units to compare: not a case this test is about)
          fc.pre(expected.units > 0 || scope.filters !== undefined);
          assert.deepEqual(await scanAttribution(tiny, scope, o), expected);
          assert.deepEqual(await streamAttribution(roomy, scope, o), expected);
        }),
    ),
    { numRuns: 40 },
  );
});
