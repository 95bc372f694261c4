/**
 * Paths streamed part by part (sequence/paths_stream.ts) against the reference and the scan over all
 * batches: after and before an anchor, by page, event or both, ranked by sessions or visitors, over sessions
 * crossing midnight, late parts and a raw tail, with filters; also letting go of unanchored sessions' rows after
 * every part (those anchored later are read again from their parts).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { paths } from "../../../lib/query/sequence/paths.ts";
import { scanPaths, streamPaths } from "../../../lib/query/sequence/paths_stream.ts";
import type { PathsOptions } from "../../../lib/query/sequence_types.ts";
import { naivePaths } from "./reference.ts";
import { eventArb, filterArb, streamSite } from "./stream_fixtures.ts";

const optionsArb = fc.record({
  anchor: fc.constantFrom<PathsOptions["anchor"]>(
    { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
    { event_type: "$pageview" },
    { event_type: "sign_up" },
  ),
  direction: fc.constantFrom<"after" | "before">("after", "before"),
  depth: fc.integer({ min: 1, max: 3 }),
  step: fc.constantFrom<PathsOptions["step"]>("page", "event", "page_or_event"),
  rank: fc.constantFrom<PathsOptions["rank"]>("sessions", "visitors"),
  limit: fc.integer({ min: 1, max: 5 }),
});

Deno.test("paths streamed part by part equal the reference and the scan, with parts, late parts and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      optionsArb,
      (first, late, tail, filters, o) =>
        streamSite(first, late, tail, filters, async ({ all, scope, tiny, roomy, kv }) => {
          const expected = naivePaths(all, scope, o);
          assert.deepEqual(await scanPaths(tiny, scope, o, kv), expected);
          assert.deepEqual(await streamPaths(roomy, scope, o), expected);
          // rows of sessions with no anchor yet let go after every part, read again when anchored later
          assert.deepEqual(await streamPaths(tiny, scope, o, { keepRows: 0 }), expected);
          assert.deepEqual(paths(await roomy.of(scope), o), expected);
        }),
    ),
    { numRuns: 50 },
  );
});
