/**
 * Funnels streamed part by part (sequence/funnel_stream.ts) against the reference and the scan over all
 * batches: by visitor or session, with and without a window, split by a field, over visitors whose steps lie
 * in several parts (two days, late parts, a raw tail), with filters.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { funnel } from "../../../lib/query/sequence/funnel.ts";
import { scanFunnel, streamFunnel } from "../../../lib/query/sequence/funnel_stream.ts";
import type { FunnelOptions, StepDef } from "../../../lib/query/sequence_types.ts";
import { naiveFunnel } from "./reference.ts";
import { eventArb, filterArb, streamSite } from "./stream_fixtures.ts";

const stepArb = fc.constantFrom<StepDef>(
  { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/" }] },
  { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
  { event_type: "$pageview" },
  { event_type: "sign_up" },
  { event_type: "$pageleave" },
);
const optionsArb = fc.record({
  steps: fc.array(stepArb, { minLength: 1, maxLength: 4 }),
  by: fc.constantFrom<"visitor" | "session">("visitor", "session"),
  window: fc.option(fc.constantFrom(60_000, 30 * 60_000, 86_400_000), { nil: undefined }),
  split: fc.option(fc.constantFrom("country", "source"), { nil: undefined }),
  top: fc.integer({ min: 1, max: 2 }),
});

Deno.test("funnels streamed part by part equal the reference and the scan, with parts, late parts and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      optionsArb,
      (first, late, tail, filters, q) =>
        streamSite(first, late, tail, filters, async ({ all, scope, tiny, roomy, kv }) => {
          const o: FunnelOptions = {
            steps: q.steps,
            by: q.by,
            ...(q.window !== undefined ? { window_ms: q.window } : {}),
            ...(q.split ? { split: { field: q.split as "country", top: q.top } } : {}),
          };
          const expected = naiveFunnel(all, scope, o);
          assert.deepEqual(await scanFunnel(tiny, scope, o, kv), expected);
          assert.deepEqual(await streamFunnel(roomy, scope, o), expected);
          assert.deepEqual(funnel(await roomy.of(scope), o), expected);
        }),
    ),
    { numRuns: 60 },
  );
});
