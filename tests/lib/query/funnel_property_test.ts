/**
 * Funnels with a conversion window against the reference, on dense data where it matters which start
 * counts: few visitors, few kinds of events, many repeats, windows from minutes to a day.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { Filter, FunnelOptions, Scope } from "../../../lib/query/api.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";
import { naiveFunnel } from "./reference.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const BASE = NOW - 3 * 86_400_000;
const KINDS = [
  { type: "$pageview", page: "/" },
  { type: "$pageview", page: "/pricing" },
  { type: "sign_up", page: "/pricing" },
] as const;
const page = (value: string): Filter => ({ field: "page", op: "eq", value });

Deno.test("funnel property: the furthest-reaching start counts, whatever the window", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          minute: fc.integer({ min: 0, max: 2 * 24 * 60 }),
          visitor: fc.constantFrom("a", "b"),
          session: fc.constantFrom("s1", "s2"),
          kind: fc.integer({ min: 0, max: KINDS.length - 1 }),
          country: fc.constantFrom("DE", "FR", null),
        }),
        { minLength: 1, maxLength: 40 },
      ),
      fc.constantFrom(10, 60, 360, 1440),
      fc.boolean(),
      async (raw, windowMinutes, reversed) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const events = raw.map((r, i) =>
            ev({
              received_at: BASE + r.minute * 60_000 + i,
              anonymous_id: r.visitor,
              session_id: `${r.visitor}-${r.session}`,
              event_type: KINDS[r.kind].type,
              path: KINDS[r.kind].page,
              geo: { country: r.country, city: null, asn: null, as_org: null },
            })
          );
          await store(deps.kv, { events });
          const scope: Scope = { org: "org1", env: "production", from: BASE, to: NOW, timezone: "UTC" };
          const steps = [
            { event_type: "$pageview", filters: [page("/")] },
            { event_type: "$pageview", filters: [page("/pricing")] },
            { event_type: "sign_up" },
          ];
          const opts: FunnelOptions = {
            steps: reversed ? [steps[1], steps[0], steps[2]] : steps,
            window_ms: windowMinutes * 60_000,
            split: { field: "country", top: 1 },
          };
          assert.deepEqual(await createEngine(deps).funnel(scope, opts), naiveFunnel(events, scope, opts));
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          const session = { ...opts, by: "session" as const };
          assert.deepEqual(await createEngine(deps).funnel(scope, opts), naiveFunnel(events, scope, opts));
          assert.deepEqual(
            await createEngine(deps).funnel(scope, session),
            naiveFunnel(events, scope, session),
          );
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});
