/**
 * The sessions question streamed part by part (sequence/sessions_stream.ts) against the reference: random
 * sessions that cross midnight (rows in two parts), late arrivals (a later part of an earlier day), a raw
 * tail, filters on a row field, any limit. Always equal, and equal to the scan over all batches.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { sessions } from "../../../lib/query/sequence/sessions.ts";
import { scanSessions, streamSessions } from "../../../lib/query/sequence/sessions_stream.ts";
import type { Filter, Scope } from "../../../lib/query/types.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";
import { naiveSessions } from "./reference.ts";

const NOW = Date.parse("2026-11-05T12:00:00Z");
const MIDNIGHT = Date.parse("2026-11-04T00:00:00Z");

const eventArb = fc.record({
  // minutes around the last two midnights: sessions cross them
  minute: fc.integer({ min: -90, max: 60 }),
  day: fc.integer({ min: 0, max: 1 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4"),
  session: fc.constantFrom("s1", "s2", "s3"),
  type: fc.constantFrom("$pageview", "$pageview", "$pageleave", "sign_up"),
  page: fc.constantFrom("/", "/pricing", "/docs"),
  country: fc.constantFrom("DE", "GB", null),
  traffic: fc.constantFrom("human", "human", "bot"),
  seq: fc.integer({ min: 0, max: 4 }),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const toEvents = (raw: Ev[], offset: number): StoredEvent[] =>
  raw.map((r, i) => {
    const t = MIDNIGHT + r.day * 86_400_000 + r.minute * 60_000 + 2 * i + offset;
    return ev({
      received_at: t,
      device_time: new Date(t).toISOString(),
      sequence_no: r.seq,
      anonymous_id: r.visitor,
      session_id: r.session,
      event_type: r.type,
      path: r.page,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
    });
  });

const filterArb = fc.option(
  fc.constantFrom<Filter[]>(
    [{ field: "page", op: "eq", value: "/pricing" }],
    [{ field: "country", op: "neq", value: "DE" }],
    [{ field: "event_type", op: "in", value: ["sign_up", "$pageleave"] }],
  ),
  { nil: undefined },
);

Deno.test("sessions streamed part by part equal the reference and the scan, with parts, late parts and a raw tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      filterArb,
      fc.integer({ min: 1, max: 8 }),
      fc.boolean(),
      async (first, late, tail, filters, limit, matchFilters) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const a = toEvents(first, 0), b = toEvents(late, 1), c = toEvents(tail, 1_000);
          await store(deps.kv, { events: a });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await store(deps.kv, { events: b });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await store(deps.kv, { events: c });
          const all = [...a, ...b, ...c];
          const scope: Scope = {
            org: "org1",
            env: "production",
            from: MIDNIGHT - 86_400_000,
            to: NOW,
            timezone: "UTC",
            filters,
          };
          const o = { limit, matchFilters };
          const expected = naiveSessions(all, scope, o);
          // a budget no part fits: the streamed path
          const tiny = new ScanContexts(
            new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }),
          );
          assert.equal(await tiny.tooLarge(scope), true);
          assert.deepEqual(await scanSessions(tiny, scope, o), expected);
          const roomy = new ScanContexts(new Source(deps));
          assert.deepEqual(await streamSessions(roomy, scope, o), expected);
          assert.deepEqual(sessions(await roomy.of(scope), o), expected);
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 40 },
  );
});
