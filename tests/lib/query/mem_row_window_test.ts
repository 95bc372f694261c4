/**
 * What a scan keeps per scope (masks, session facts) and what a cohort evaluation keeps are keyed by the
 * parts' rows a window selects, not by the window cut to the parts' whole time range: a question whose
 * period starts inside a part (the previous period's end, the period's start as "now" moves) and moved past
 * no row shares what was kept. Cut to the parts' range, each such question at a new "now" under a cohort
 * evaluated the cohort again and kept new session facts (~10 MB an ask at 1M events). A window that passes a
 * row still gets its own, exact answer.
 */
import assert from "node:assert/strict";
import { compact } from "../../../lib/jobs/compact.ts";
import { CohortCache } from "../../../lib/query/cohort/cache.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { sessionFacts } from "../../../lib/query/scan/session_facts.ts";
import { aggregateMany } from "../../../lib/query/aggregate/aggregate.ts";
import type { CohortExpr, Scope } from "../../../lib/query/types.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const HOUR = 3_600_000;
const T0 = NOW - 6 * HOUR; // the part's first rows
const GAP = T0 + HOUR; // no row lies in [GAP, GAP + 10 min)

const visit = (visitor: string, at: number, event = "sign_up") => [
  ev({ received_at: at, anonymous_id: visitor, session_id: `${visitor}-s` }),
  ev({ received_at: at + 1, anonymous_id: visitor, session_id: `${visitor}-s`, event_type: event }),
];

Deno.test("row window: a period starting inside a part that moved past no row shares what was kept", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    await store(deps.kv, {
      events: [
        ...visit("a", T0),
        ...visit("b", GAP + 20 * 60_000),
        ...visit("c", NOW - HOUR, "browse"),
        ...visit("d", NOW - HOUR / 2),
      ],
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const source = new Source(deps);
    const scans = new ScanContexts(source);
    const signedUp = (from: number): CohortExpr => ({
      did: { filters: [{ field: "event_type", op: "eq", value: "sign_up" }], from, to: NOW + 1 },
    });
    const scope = (from: number, cohort?: CohortExpr): Scope => ({
      org: "org1",
      env: "production",
      touchpoint: "tp1",
      from,
      to: NOW + 1,
      timezone: "UTC",
      ...(cohort ? { cohort } : {}),
    });

    // the cohort: its window's start moved 10 minutes inside the part, past no row: the same evaluation
    const cohorts = new CohortCache(source);
    const first = await cohorts.membership(scope(GAP), signedUp(GAP));
    assert.equal(await cohorts.membership(scope(GAP + 600_000), signedUp(GAP + 600_000)), first);
    // past a's rows: another, exact one (a is no longer a member)
    const later = await cohorts.membership(scope(T0 + 2), signedUp(T0 + 2));
    const fromStart = await cohorts.membership(scope(T0), signedUp(T0));
    assert.notEqual(later, fromStart);
    const interner = source.interner("org1", "production");
    const member = (m: typeof first, id: string) => {
      const v = interner.vis(id);
      return (v < m.bits.length ? m.bits[v] : m.dflt) === 1;
    };
    assert.equal(member(fromStart, "a"), true);
    assert.equal(member(later, "a"), false);

    // the scan: the same scope key, so the kept session facts are those of the first question
    const c1 = await scans.of(scope(GAP, signedUp(GAP)));
    const facts = sessionFacts(c1);
    const c2 = await scans.of(scope(GAP + 600_000, signedUp(GAP + 600_000)));
    assert.equal(c2.scopeKey, c1.scopeKey);
    assert.equal(sessionFacts(c2), facts);
    // a start past a row: its own key and facts
    const c3 = await scans.of(scope(T0 + 1));
    const c4 = await scans.of(scope(T0));
    assert.notEqual(c3.scopeKey, c4.scopeKey);

    // exact: the same counts as the plain window, and the window past a's rows counts without them
    const count = async (s: Scope) =>
      (await aggregateMany(await scans.of(s), [{ metrics: ["events", "visitors"] }]))[0].totals;
    assert.deepEqual(await count(scope(GAP + 600_000)), { events: 6, visitors: 3 });
    assert.deepEqual(await count(scope(GAP)), { events: 6, visitors: 3 });
    assert.deepEqual(await count(scope(T0)), { events: 8, visitors: 4 });
    assert.deepEqual(await count(scope(T0 + 1)), { events: 7, visitors: 4 });
    assert.deepEqual(await count(scope(T0 + 2)), { events: 6, visitors: 3 });
  } finally {
    deps.kv.close();
  }
});
