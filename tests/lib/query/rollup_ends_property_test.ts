/**
 * Entries and exits per page from the session facts' first and last pageviews (rollup/sessions.ts
 * entriesAndExits) against the reference: dense sessions of a few visitors whose pageviews spread over hours,
 * midnight (so parts), late arrivals and a raw tail, device clocks behind, equal receive times.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { DAY, expected, openSite, pageEventArb, pageEvents } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
// ten hours around midnight UTC: sessions cross hours and parts
const START = Date.parse("2026-11-17T20:00:00Z");
const eventArb = pageEventArb(4, [0, 0, -5_000, -3_600_000]);

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
        const site = await openSite(NOW);
        // equal receive times happen: minutes, not milliseconds
        await site.add(pageEvents(first, START));
        await site.compact();
        // late arrivals in compacted hours, read from the raw tail
        await site.add(pageEvents(late, START, 30_000));
        for (const round of [0, 1]) {
          if (round) await site.compact();
          const rollups = site.rollups();
          // each scope twice: the second answer reuses the parts' join kept for the period
          for (const s of [...scopes, ...scopes]) {
            const answers = await rollups.answer(s, questions);
            answers.forEach((got, i) => {
              if (!got) return;
              served++;
              assert.deepEqual(got, expected(site, s, questions[i]), JSON.stringify({ s, i }));
            });
          }
        }
        await site.close();
      },
    ),
    { numRuns: 30 },
  );
  assert.ok(served > 0, "answered from rollups");
});
