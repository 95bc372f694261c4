/**
 * A page list with entries, exits and exit rate asked again and again of one engine: from the third ask its
 * sums and viewers come from the list kept for the period (kept_lists.ts) and its entries and exits from the
 * period's kept session totals, the raw tail (growing between asks: new sessions, late rows of compacted
 * sessions) added on top. Each answer equals the reference over every event stored.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { DAY, expected, pageEventArb, pageEvents, tailGrowing } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
// ten hours around midnight UTC: sessions cross hours and parts
const START = Date.parse("2026-11-17T20:00:00Z");
const eventArb = pageEventArb(6, [0, 0, -5_000]);

const pages: AggregateOptions = {
  metrics: ["pageviews", "viewers", "engagement_time_s", "exit_rate", "rage_clicks", "entries", "exits"],
  breakdown: ["page"],
};
const scopes: Scope[] = [
  { org: "org1", env: "production", from: NOW - 4 * DAY, to: NOW, timezone: "UTC" },
  // a period cutting sessions (from 23:00 UTC), in a zone an hour off UTC
  {
    org: "org1",
    env: "production",
    from: Date.parse("2026-11-17T23:00:00Z"),
    to: NOW,
    timezone: "Europe/Berlin",
  },
];

Deno.test("rollup page list: entries and exits beside a kept list, the raw tail growing between asks", async () => {
  let fromKept = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(fc.array(eventArb, { maxLength: 6 }), { minLength: 4, maxLength: 4 }),
      async (first, tails) => {
        const rollups = await tailGrowing(
          NOW,
          () => pageEvents(first, START, 0, "k"),
          scopes,
          // late rows in compacted hours and new sessions, read from the raw tail
          tails.map((more) => () => pageEvents(more, START, 30_000, "k")),
          async (site, rollups, s) => {
            const [got] = await rollups.answer(s, [pages]);
            if (got) assert.deepEqual(got, expected(site, s, pages), JSON.stringify(s));
          },
        );
        fromKept += rollups.listsFromKept;
      },
    ),
    { numRuns: 25 },
  );
  assert.ok(fromKept > 0, "page lists answered from kept lists");
});
