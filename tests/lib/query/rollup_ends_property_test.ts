/**
 * Entries and exits per page from the session facts' first and last pageviews (rollup/sessions.ts
 * entriesAndExits) against the reference: dense sessions of a few visitors whose pageviews spread over hours,
 * midnight (so parts), late arrivals and a raw tail, device clocks behind, equal receive times.
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
  visitor: fc.integer({ min: 0, max: 3 }),
  session: fc.integer({ min: 0, max: 1 }),
  type: fc.constantFrom("$pageview", "$pageview", "$pageview", "$pageleave", "sign_up"),
  page: fc.constantFrom("/", "/pricing", "/docs", "/signup"),
  skew: fc.constantFrom(0, 0, -5_000, -3_600_000),
  seq: fc.integer({ min: 0, max: 3 }),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
const toEvents = (raw: Ev[], at: (r: Ev) => number): StoredEvent[] =>
  raw.map((r) =>
    ev({
      id: `e${serial++}`,
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

const questions: AggregateOptions[] = [
  { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] },
  { metrics: ["entries", "exits", "exit_rate", "sessions"] },
  { metrics: ["sessions", "bounce_rate", "engaged_visitors", "dropped_events", "session_duration_s"] },
];
const scopes: Scope[] = [
  { org: "org1", env: "production", from: NOW - 4 * DAY, to: NOW, timezone: "UTC" },
  // a period cutting the sessions (from 23:00 UTC): their pageviews before it are not in scope
  { org: "org1", env: "production", from: Date.parse("2026-11-17T23:00:00Z"), to: NOW, timezone: "UTC" },
  {
    org: "org1",
    env: "production",
    from: NOW - 4 * DAY,
    to: NOW,
    timezone: "UTC",
    traffic: ["human", "bot"],
  },
];

Deno.test("rollup entries and exits: per page and in total, equal to the reference", async () => {
  let served = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 60 }),
      fc.array(eventArb, { maxLength: 10 }),
      async (first, late) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        // equal receive times happen: minutes, not milliseconds
        const a = toEvents(first, (r) => START + r.minute * 60_000);
        await store(deps.kv, { events: a });
        await compact(deps, "org1", "production", "ev", { graceMs: 0 });
        // late arrivals in compacted hours, read from the raw tail
        const b = toEvents(late, (r) => START + r.minute * 60_000 + 30_000);
        await store(deps.kv, { events: b });
        for (const round of [0, 1]) {
          if (round) await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          const rollups = new RollupSource(deps, new Source(deps));
          // each scope twice: the second answer reuses the parts' join kept for the period
          for (const s of [...scopes, ...scopes]) {
            const answers = await rollups.answer(s, questions);
            answers.forEach((got, i) => {
              if (!got) return;
              served++;
              assert.deepEqual(got, naiveAggregate([...a, ...b], s, questions[i]), JSON.stringify({ s, i }));
            });
          }
        }
        deps.kv.close();
      },
    ),
    { numRuns: 30 },
  );
  assert.ok(served > 0, "answered from rollups");
});
