/**
 * The sessions question streamed part by part (sequence/sessions_stream.ts) against the reference: random
 * sessions that cross midnight (rows in two parts), late arrivals (a later part of an earlier day), a raw
 * tail, filters on a row field, any limit. Always equal, and equal to the scan over all batches.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { sessions } from "../../../lib/query/sequence/sessions.ts";
import { scanSessions, streamSessions } from "../../../lib/query/sequence/sessions_stream.ts";
import { naiveSessions } from "./reference.ts";
import { eventArb, filterArb, streamSite } from "./stream_fixtures.ts";

Deno.test("sessions streamed part by part equal the reference and the scan, with parts, late parts and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      fc.integer({ min: 1, max: 8 }),
      fc.boolean(),
      (first, late, tail, filters, limit, matchFilters) =>
        streamSite(first, late, tail, filters, async ({ all, scope, tiny, roomy, kv }) => {
          const o = { limit, matchFilters };
          const expected = naiveSessions(all, scope, o);
          assert.equal(await tiny.tooLarge(scope), true, "a budget no part fits: streamed");
          assert.deepEqual(await scanSessions(tiny, scope, o, kv), expected);
          assert.deepEqual(await streamSessions(roomy, scope, o), expected);
          assert.deepEqual(sessions(await roomy.of(scope), o), expected);
        }),
    ),
    { numRuns: 40 },
  );
});
