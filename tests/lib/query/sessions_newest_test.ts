/**
 * The newest sessions read newest part first (sequence/sessions_newest.ts) against the scan over all batches
 * and the reference: random sessions over four days (parts per day, sessions crossing midnight, late parts
 * of earlier days, a raw tail), one session id used by several visitors (the session tables' hashes are of
 * the id alone), receive times shared by several events (ties broken by device time, number, visitor),
 * filters, a period starting mid-way, any limit. And the point of it: old parts are not read (also when the
 * period would fit the budget: it is not scanned).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { sessions } from "../../../lib/query/sequence/sessions.ts";
import { newestFirst, scanSessions, streamSessions } from "../../../lib/query/sequence/sessions_stream.ts";
import type { Filter, Scope } from "../../../lib/query/types.ts";
import type { PartMeta } from "../../../lib/parts/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";
import { naiveSessions } from "./reference.ts";

const DAY = 86_400_000;
const START = Date.parse("2026-11-02T00:00:00Z");
const NOW = START + 3 * DAY + 18 * 3_600_000;

const eventArb = fc.record({
  day: fc.integer({ min: 0, max: 3 }),
  // around midnight (sessions cross it), or mid-day
  minute: fc.oneof(fc.integer({ min: -45, max: 45 }), fc.integer({ min: 600, max: 660 })),
  visitor: fc.constantFrom<string>("v1", "v2", "v3", "v4", "v5"),
  session: fc.constantFrom<string>("s1", "s2", "s3"),
  type: fc.constantFrom("$pageview", "$pageview", "sign_up"),
  page: fc.constantFrom("/", "/pricing"),
  country: fc.constantFrom("DE", "GB"),
  source: fc.constantFrom("Google", "(direct)"),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  seq: fc.integer({ min: 0, max: 2 }),
  deviceSkew: fc.integer({ min: -1, max: 1 }),
  /** on the minute: receive times shared with other events */
  onMinute: fc.boolean(),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const toEvents = (raw: Ev[], offset: number): StoredEvent[] =>
  raw.map((r, i) => {
    const t = START + r.day * DAY + r.minute * 60_000 + (r.onMinute ? 0 : 5 * i + offset + 1);
    return ev({
      received_at: t,
      device_time: new Date(t + r.deviceSkew * 1000).toISOString(),
      sequence_no: r.seq,
      anonymous_id: r.visitor,
      session_id: r.session,
      event_type: r.type,
      path: r.page,
      source: r.source,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
    });
  });

const filterArb = fc.option(
  fc.constantFrom<Filter[]>(
    [{ field: "page", op: "eq", value: "/pricing" }],
    [{ field: "country", op: "eq", value: "GB" }],
    [{ field: "source", op: "eq", value: "Google" }],
    [{ field: "event_type", op: "eq", value: "sign_up" }],
  ),
  { nil: undefined },
);

/** Whether no two sessions' first rows in scope tie on all three order times (the reference orders such ties by input order). */
function noTies(all: StoredEvent[]): boolean {
  const keys = new Set(all.map((e) => `${e.received_at}|${e.device_time}|${e.sequence_no}`));
  return keys.size === all.length;
}

/** Stores the events (compacted, late ones compacted, a raw tail) and gives a tiny-budget and a roomy source. */
async function site(
  first: Ev[],
  late: Ev[],
  tail: Ev[],
  ask: (
    x: {
      all: StoredEvent[];
      /** the events compacted into parts (not the raw tail) */
      parted: StoredEvent[];
      tiny: ScanContexts;
      roomy: ScanContexts;
      kv: Deno.Kv;
      fresh: () => ScanContexts;
    },
  ) => Promise<void>,
) {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    const a = toEvents(first, 0), b = toEvents(late, 1), c = toEvents(tail, 2);
    await store(deps.kv, { events: a });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await store(deps.kv, { events: b });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    await store(deps.kv, { events: c });
    const tiny = new ScanContexts(new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }));
    const roomy = new ScanContexts(new Source(deps));
    const fresh = () => new ScanContexts(new Source(deps));
    await ask({ all: [...a, ...b, ...c], parted: [...a, ...b], tiny, roomy, kv: deps.kv, fresh });
  } finally {
    deps.kv.close();
  }
}

const scopeOf = (from: number, filters?: Filter[]): Scope => ({
  org: "org1",
  env: "production",
  from,
  to: NOW,
  timezone: "UTC",
  filters,
});

Deno.test("newest sessions read newest part first equal the scan over all batches (and the reference without ties)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(eventArb, { maxLength: 12 }),
      fc.array(eventArb, { maxLength: 8 }),
      filterArb,
      fc.integer({ min: 1, max: 6 }),
      fc.boolean(),
      fc.constantFrom(START - DAY, START + 600 * 60_000),
      (first, late, tail, filters, limit, matchFilters, from) =>
        site(first, late, tail, async ({ all, parted, tiny, roomy, kv, fresh }) => {
          const scope = scopeOf(from, filters), o = { limit, matchFilters };
          const expected = sessions(await roomy.of(scope), o);
          if (noTies(all)) assert.deepEqual(expected, naiveSessions(all, scope, o));
          // a budget no part fits: streamed (when a part lies in the period: parts all before a late `from`
          // leave nothing to stream)
          const rows = parted.some((e) => e.received_at >= from);
          assert.equal(await tiny.tooLarge(scope), rows, "a budget no part fits: streamed");
          assert.deepEqual(await scanSessions(tiny, scope, o, kv), expected);
          // a budget the period fits: the same answer
          assert.deepEqual(await scanSessions(fresh(), scope, o, kv), expected);
          // the newest-first read itself (no fallback), with the budget keeping parts and session tables,
          // asked twice (the second from what the first kept)
          const own = fresh();
          assert.deepEqual(await newestFirst(own, scope, o, kv), expected);
          assert.deepEqual(await newestFirst(own, scope, o, kv), expected);
          assert.deepEqual(await streamSessions(tiny, scope, o), expected);
        }),
    ),
    { numRuns: 60 },
  );
});

Deno.test("the newest sessions leave older days' parts unread, also when a session crosses midnight", async () => {
  const e = (day: number, minute: number, visitor: string, session: string): Ev => ({
    day,
    minute,
    visitor,
    session,
    type: "$pageview",
    page: "/",
    country: "DE",
    source: "Google",
    traffic: "human",
    seq: 0,
    deviceSkew: 0,
    onMinute: true,
  });
  const first = [
    e(0, 600, "v1", "a"),
    e(1, 600, "v2", "b"),
    e(2, 600, "v3", "c"),
    // crosses the last midnight: starts on day 2, its newest row on day 3
    e(2, 1430, "v4", "d"),
    e(3, 5, "v4", "d"),
    e(3, 600, "v5", "e"),
    e(3, 630, "v1", "f"),
  ];
  await site(first, [], [], async ({ tiny, roomy, kv }) => {
    const visited: string[] = [];
    const stream = tiny.source.stream.bind(tiny.source);
    tiny.source.stream = (org, env, from, to, o) =>
      stream(org, env, from, to, {
        ...o,
        pick: (p: PartMeta) => {
          const take = o.pick ? o.pick(p) : true;
          if (take) visited.push(new Date(p.min_t).toISOString().slice(0, 10));
          return take;
        },
      });
    const scope = scopeOf(START - DAY);
    const all = sessions(await roomy.of(scope), {});
    assert.equal(all.length, 6);
    // the two newest: on the last day only
    visited.length = 0;
    assert.deepEqual(await scanSessions(tiny, scope, { limit: 2 }, kv), all.slice(0, 2));
    assert.deepEqual([...new Set(visited)], ["2026-11-05"]);
    // the third seems to start at 5 past midnight by the last day's rows, but its id is in day 2's part: that
    // part is read (it starts there), the older ones are not
    visited.length = 0;
    assert.deepEqual(await scanSessions(tiny, scope, { limit: 3 }, kv), all.slice(0, 3));
    assert.equal(all[2].start, START + 2 * DAY + 1430 * 60_000);
    assert.deepEqual([...new Set(visited)].sort(), ["2026-11-04", "2026-11-05"]);
    assert.ok(!visited.includes("2026-11-02") && !visited.includes("2026-11-03"));
    // a budget the whole period fits: the newest parts too, the period is not scanned
    let scanned = 0;
    const of = roomy.of.bind(roomy);
    roomy.of = (s) => (scanned++, of(s));
    assert.deepEqual(await scanSessions(roomy, scope, { limit: 2 }, kv), all.slice(0, 2));
    assert.equal(scanned, 0, "the period was scanned");
    // no limit: the scan
    assert.deepEqual(await scanSessions(roomy, scope, {}, kv), all);
    assert.equal(scanned, 1);
  });
});
