/**
 * A trend's visitors asked again and again of one engine: from the second ask each bucket's visitors (and the
 * trend's total) come from unions kept for the period by bucket (unions.ts), the raw tail's visitors added
 * where the parts' bucket lacks them. Buckets in Berlin across its autumn clock change (an hour twice), the
 * raw tail growing between asks with late rows in compacted hours. Each answer equals the reference.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { expected, MINUTE, tailGrowing } from "./rollup_site.ts";

const NOW = Date.parse("2026-10-27T12:00:00Z");
// ten hours around Berlin's clock change (2026-10-25 01:00 UTC): midnights, parts and a repeated hour
const START = Date.parse("2026-10-24T20:00:00Z");

const eventArb = fc.record({
  minute: fc.integer({ min: 0, max: 600 }),
  visitor: fc.integer({ min: 0, max: 7 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "sign_up"),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
/** One session a visitor, on one page. */
const toEvents = (raw: Ev[], lateBy: number): StoredEvent[] =>
  raw.map((r) =>
    ev({
      id: `b${serial++}`,
      received_at: START + r.minute * MINUTE + lateBy,
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}`,
      event_type: r.type,
      path: "/",
      traffic: r.traffic as "human",
    })
  );

const questions: AggregateOptions[] = [
  { metrics: ["visitors", "events"], bucket: "day", sort: { by: "key" } },
  { metrics: ["viewers"], bucket: "hour", sort: { by: "key" } },
];
const scopes: Scope[] = [
  // from Berlin's midnight of 23 Oct
  {
    org: "org1",
    env: "production",
    from: Date.parse("2026-10-22T22:00:00Z"),
    to: NOW,
    timezone: "Europe/Berlin",
  },
  { org: "org1", env: "production", from: Date.parse("2026-10-22T00:00:00Z"), to: NOW, timezone: "UTC" },
];

Deno.test("rollup trends: visitors per bucket from kept unions, the raw tail growing between asks", async () => {
  let served = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(fc.array(eventArb, { maxLength: 6 }), { minLength: 3, maxLength: 3 }),
      async (first, tails) => {
        await tailGrowing(
          NOW,
          () => toEvents(first, 0),
          scopes,
          tails.map((more) => () => toEvents(more, 30_000)),
          async (site, rollups, s) => {
            const got = await rollups.answer(s, questions);
            got.forEach((a, i) => {
              if (!a) return;
              served++;
              assert.deepEqual(a, expected(site, s, questions[i]), JSON.stringify({ s, i }));
            });
          },
        );
      },
    ),
    { numRuns: 25 },
  );
  assert.ok(served > 0, "answered from rollups");
});

// a trend of one event type (the trends tool filters by its event): the buckets' unions of that value's rows
// and the field's unions by value (its totals) are kept as for an unfiltered trend
const oneType: AggregateOptions[] = [
  { metrics: ["visitors", "events"], bucket: "day", sort: { by: "key" } },
  { metrics: ["visitors"], bucket: "hour", sort: { by: "key" } },
  { metrics: ["visitors", "events", "sessions"] },
];

Deno.test("rollup trends: a trend of one event type from kept unions, the raw tail growing between asks", async () => {
  let served = 0, kept = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(fc.array(eventArb, { maxLength: 6 }), { minLength: 3, maxLength: 3 }),
      fc.constantFrom("$pageview", "sign_up", "$pageleave"),
      async (first, tails, type) => {
        await tailGrowing(
          NOW,
          () => toEvents(first, 0),
          // two event types asked of one source: each keeps its own buckets' unions
          scopes.flatMap((s) =>
            [type, "$pageview"].map((value) => ({
              ...s,
              filters: [{ field: "event_type", op: "eq", value }],
            }))
          ),
          tails.map((more) => () => toEvents(more, 30_000)),
          async (site, rollups, s) => {
            const got = await rollups.answer(s, oneType);
            got.forEach((a, i) => {
              if (!a) return;
              served++;
              assert.deepEqual(a, expected(site, s, oneType[i]), JSON.stringify({ s, i }));
            });
            // (only these filtered questions are asked: any union kept is one of theirs)
            kept += (rollups as unknown as { r: { unions: { size: number } } }).r.unions.size;
          },
        );
      },
    ),
    { numRuns: 25 },
  );
  assert.ok(served > 0, "answered from rollups");
  assert.ok(kept > 0, "unions kept for a trend of one event type");
});
