/**
 * The kept cohort evaluation: a question at a later "now" with nothing new, or with new events that change
 * nobody's membership, gets the same membership back (the same number for its masks); a window ending before
 * rows the parts hold, a new raw event that adds a member, a compaction, another touchpoint or another
 * definition each get their own, exact one.
 */
import assert from "node:assert/strict";
import { CohortCache } from "../../../lib/query/cohort/cache.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import type { CohortExpr, Scope } from "../../../lib/query/types.ts";
import type { Membership } from "../../../lib/query/scan/ctx.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const DAY_START = Date.parse("2026-11-03T00:00:00Z");
const HOUR = 3_600_000;

const signedUp = (to: number, event = "sign_up"): CohortExpr => ({
  did: { filters: [{ field: "event_type", op: "eq", value: event }], from: DAY_START, to },
});

const visit = (visitor: string, at: number, event = "sign_up", touchpoint = "tp1") => [
  ev({ received_at: at, anonymous_id: visitor, session_id: `${visitor}-s`, touchpoint }),
  ev({
    received_at: at + 1,
    anonymous_id: visitor,
    session_id: `${visitor}-s`,
    event_type: event,
    touchpoint,
  }),
];

Deno.test("cohort cache: reused at a later now while nothing changed; any change evaluates anew, exactly", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    await store(deps.kv, {
      events: [
        ...visit("a", NOW - 3 * HOUR),
        ...visit("b", NOW - HOUR),
        ...visit("c", NOW - 2 * HOUR, "browse"),
      ],
    });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const source = new Source(deps);
    const cache = new CohortCache(source);
    const scope = (to: number, touchpoint = "tp1"): Scope => ({
      org: "org1",
      env: "production",
      touchpoint,
      from: DAY_START,
      to,
      timezone: "UTC",
    });
    const ask = (expr: CohortExpr, to = NOW + 1, touchpoint?: string) =>
      cache.membership(scope(to, touchpoint), expr);
    const members = (m: Membership) => {
      const interner = source.interner("org1", "production");
      return ["a", "b", "c", "d"].filter((id) => {
        const v = interner.vis(id);
        return (v < m.bits.length ? m.bits[v] : m.dflt) === 1;
      });
    };

    const first = await ask(signedUp(NOW + 1));
    assert.deepEqual(members(first), ["a", "b"]);
    // the clock moved on, nothing new: the same membership, not evaluated again
    assert.equal(await ask(signedUp(NOW + 1_001), NOW + 1_001), first);
    assert.equal(await ask(signedUp(NOW + HOUR), NOW + HOUR), first);
    // a window that ends before b's sign-up is another cohort, though the same parts are read
    const earlier = await ask(signedUp(NOW - HOUR), NOW - HOUR);
    assert.notEqual(earlier, first);
    assert.deepEqual(members(earlier), ["a"]);

    // a new raw event: evaluated anew (parts kept, the tail added), then kept while the tail is the same
    await store(deps.kv, { events: visit("d", NOW - 10 * 60_000) });
    const withTail = await ask(signedUp(NOW + 2_000), NOW + 2_000);
    assert.notEqual(withTail, first);
    assert.deepEqual(members(withTail), ["a", "b", "d"]);
    assert.equal(await ask(signedUp(NOW + 3_000), NOW + 3_000), withTail);
    // new events that change nobody's membership (c browses again, b signs up again): still the same one
    await store(deps.kv, {
      events: [...visit("c", NOW - 5 * 60_000, "browse"), ...visit("b", NOW - 4 * 60_000)],
    });
    assert.equal(await ask(signedUp(NOW + 3_500), NOW + 3_500), withTail);

    // compacted: new parts, the same members
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const compacted = await ask(signedUp(NOW + 4_000), NOW + 4_000);
    assert.notEqual(compacted, withTail);
    assert.deepEqual(members(compacted), ["a", "b", "d"]);

    // another touchpoint, another definition
    const elsewhere = await ask(signedUp(NOW + 4_000), NOW + 4_000, "tp2");
    assert.notEqual(elsewhere, compacted);
    assert.deepEqual(members(elsewhere), []);
    const browsed = await ask(signedUp(NOW + 4_000, "browse"), NOW + 4_000);
    assert.deepEqual(members(browsed), ["c"]);
    assert.ok(cache.bytes > 0);
  } finally {
    deps.kv.close();
  }
});
