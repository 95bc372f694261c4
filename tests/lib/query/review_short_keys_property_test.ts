/**
 * Short session keys (store.ts SHORT_KEYS_SEC) over random sites: every session id is drawn from groups of ids
 * whose first hashes differ but agree on the low 24 bits, so a visitor's sessions meet on the bits short keys
 * keep within a part and across parts, and a visitor has 1 to many sessions a part (whole hashes from 4 on, short
 * below: the same visitor stored one way in one part and the other way in the next). Sessions cross hours and
 * midnights (several parts), late arrivals land in compacted hours, a raw tail grows. A period's session totals,
 * entries and exits and visitors, from the rollups and through the engines, equal the reference.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { AggregateOptions, Metric, Scope } from "../../../lib/query/api.ts";
import { SESSION_METRICS } from "../../../lib/query/rollup/answer.ts";
import { decodeShortKeys, readSection, SHORT_KEYS_SEC } from "../../../lib/query/rollup/store.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import {
  aggregateChecker,
  collidingIds,
  DAY,
  DST_BASE as BASE,
  DST_NOW as NOW,
  localMidnight,
  MINUTE,
  randomLives,
  type Site,
  visitEvent,
} from "./rollup_site.ts";

const POOL = collidingIds(3, 5, "r");

const sessionArb = fc.record({
  visitor: fc.integer({ min: 0, max: 2 }),
  group: fc.integer({ min: 0, max: POOL.length - 1 }),
  member: fc.integer({ min: 0, max: 4 }),
  // near midnights UTC often (the session then lies in two parts)
  start: fc.oneof(
    fc.integer({ min: 0, max: 4 * 24 * 60 }),
    fc.integer({ min: 1, max: 4 }).map((d) => d * 24 * 60 - 20),
  ),
  n: fc.integer({ min: 1, max: 4 }),
  more: fc.integer({ min: 0, max: 4 }),
  gap: fc.constantFrom(1, 7, 25),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  tp: fc.constantFrom("tp1", "tp1", "tp2"),
});
type Sess = typeof sessionArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
/** Each record is `more` + 1 sessions of its visitor, ~1.6 h apart, ids of one group (meeting on 24 bits). */
const toEvents = (raw: Sess[], shift = 0): StoredEvent[] =>
  raw.flatMap((r) =>
    Array.from({ length: r.more + 1 }, (_, m) =>
      Array.from({ length: r.n }, (_, j) => {
        const at = BASE + (r.start + m * 97 + j * r.gap) * MINUTE + shift + (serial % 997);
        return visitEvent(`q${serial++}`, at, at, {
          visitor: r.visitor,
          session: 0,
          seq: j,
          type: j % 3 === 2 ? "$autocapture" : "$pageview",
          traffic: r.traffic,
          tp: r.tp,
        }, { session_id: POOL[r.group][(r.member + m) % 5], path: ["/", "/a", "/b"][(r.start + j) % 3] });
      })).flat()
  );

const SESSION: Metric[] = [...SESSION_METRICS];
const questionArb = fc.record({
  traffic: fc.constantFrom(undefined, ["human"], ["human", "bot"]) as fc.Arbitrary<Scope["traffic"]>,
  touchpoint: fc.constantFrom(undefined, undefined, "tp1"),
  tz: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York"),
  fromDay: fc.integer({ min: 0, max: 4 }),
  days: fc.integer({ min: 1, max: 10 }),
  kind: fc.constantFrom(0, 1, 2),
});
type Question = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function ask(q: Question): { scope: Scope; opts: AggregateOptions } {
  const from = localMidnight(BASE, q.fromDay, q.tz);
  const opts: AggregateOptions = q.kind === 0
    ? { metrics: SESSION }
    : q.kind === 1
    ? { metrics: ["pageviews", "entries", "exits", "exit_rate"], breakdown: ["page"] }
    : { metrics: ["visitors", "sessions", "engaged_visitors"] };
  return {
    scope: {
      org: "org1",
      env: "production",
      from,
      to: Math.min(NOW, from + q.days * DAY),
      timezone: q.tz,
      traffic: q.traffic,
      touchpoint: q.touchpoint,
    },
    opts,
  };
}

/**
 * Visitors whose keys are whole in one part and short in another (counted over the site's parts): what the
 * property is about, so the run must meet some.
 */
let mixed = 0;
async function countMixed(site: Site) {
  const kinds = new Map<number, number>();
  for (const p of await site.parts()) {
    const entry = await site.entry(p.meta.id);
    if (!entry.secs[SHORT_KEYS_SEC]) continue;
    const k = decodeShortKeys((await readSection(site.kv, p.meta.id, entry, SHORT_KEYS_SEC))!);
    for (let x = 0; x < k.n; x++) kinds.set(k.vis[x], (kinds.get(k.vis[x]) ?? 0) | (k.full![x] ? 2 : 1));
  }
  for (const b of kinds.values()) if (b === 3) mixed++;
}

let served = 0, asked = 0;
async function check(site: Site, qs: Question[]) {
  const rollups = site.rollups();
  const checked = aggregateChecker(site);
  for (const q of qs) {
    const { scope, opts } = ask(q);
    asked++;
    // asked twice: the second from the kept totals
    if (await checked(scope, opts, rollups, { again: true })) served++;
  }
}

Deno.test("short keys (review): sessions meeting on 24 bits within and across parts, 1 to many a visitor a part, equal the reference", async () => {
  // more of the raw tail: late rows of compacted sessions (their hours compacted), found by the parts' short keys
  const more = (_tail: StoredEvent[], first: Sess[]) => toEvents(first.slice(0, 6), 7);
  await randomLives(sessionArb, questionArb, { first: 60, runs: 40, toEvents, more }, async (site, run) => {
    if (run.stage === "merged") await countMixed(site);
    await check(site, run.qs);
  });
  console.log(
    `${served} of ${asked} answered from rollups; ${mixed} visitors whole in one part, short in another`,
  );
  assert.ok(served > asked / 3, `${served} of ${asked} answered from rollups`);
  assert.ok(mixed > 0, "a visitor stored whole in one part and short in another");
});
