/**
 * A page list with entries, exits and exit rate asked again and again of one engine: from the third ask its
 * sums and viewers come from the list kept for the period (kept_lists.ts) and its entries and exits from the
 * period's kept session totals, the raw tail (growing between asks: new sessions, late rows of compacted
 * sessions) added on top. Each answer equals the reference over every event stored.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveAggregate } from "./reference.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const START = Date.parse("2026-11-17T20:00:00Z");

const eventArb = fc.record({
  // within ten hours around midnight UTC: sessions cross hours and parts
  minute: fc.integer({ min: 0, max: 600 }),
  visitor: fc.integer({ min: 0, max: 5 }),
  session: fc.integer({ min: 0, max: 1 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageview", "$pageleave", "sign_up"),
  page: fc.constantFrom("/", "/pricing", "/docs", "/signup"),
  skew: fc.constantFrom(0, 0, -5_000),
  seq: fc.integer({ min: 0, max: 3 }),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
const toEvents = (raw: Ev[], at: (r: Ev) => number): StoredEvent[] =>
  raw.map((r) =>
    ev({
      id: `k${serial++}`,
      received_at: at(r),
      device_time: new Date(at(r) + r.skew).toISOString(),
      sequence_no: r.seq,
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.session}`,
      event_type: r.type,
      path: r.page,
      traffic: r.traffic as "human",
    })
  );

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
        const deps = await testDeps();
        deps.clock.set(NOW);
        const all = toEvents(first, (r) => START + r.minute * 60_000);
        await store(deps.kv, { events: all });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        const rollups = new RollupSource(deps, new Source(deps));
        for (const s of scopes) {
          for (const more of tails) {
            // late rows in compacted hours and new sessions, read from the raw tail
            const b = toEvents(more, (r) => START + r.minute * 60_000 + 30_000);
            await store(deps.kv, { events: b });
            all.push(...b);
            const [got] = await rollups.answer(s, [pages]);
            if (!got) continue;
            assert.deepEqual(got, naiveAggregate(all, s, pages), JSON.stringify(s));
          }
        }
        fromKept += rollups.listsFromKept;
        deps.kv.close();
      },
    ),
    { numRuns: 25 },
  );
  assert.ok(fromKept > 0, "page lists answered from kept lists");
});
