/**
 * The ask after the cold one answered from a kept list (kept_lists.ts KeptListBuild, plain_answers.ts
 * `beginList`): each value's union made alone in a scratch bitmap, held as bits when dense and as sorted
 * numbers when sparse, and the raw tail's visitors added to a value's count only where those members lack them.
 * Some thousand visitor numbers, so that values of both kinds are kept; asked again while the raw tail grows
 * with visitors who are members of a value and visitors who are not, against the reference. A wrong number read
 * out of a sparse value's bits counts a tail visitor twice or not at all.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { DAY, expected, HOUR, MINUTE, openSite, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 7 * DAY, to: NOW, timezone: "UTC" };
const VISITORS = 3_000;

/** The pages visitor v views: one page everyone views, one a third do, and pages of a few visitors each. */
const pagesOf = (v: number): string[] =>
  [
    "/all",
    v % 3 === 0 ? "/third" : null,
    v % 50 === 0 ? "/fiftieth" : null,
    v % 400 === 7 ? "/few" : null,
    v === VISITORS - 1 ? "/last" : null,
  ].filter((p): p is string => p !== null);

const country = (v: number) => v % 97 === 0 ? "FR" : v % 5 === 0 ? "NL" : "DE";

function view(v: number, path: string, at: number): StoredEvent {
  const e = ev({ received_at: at, anonymous_id: `v${v}`, session_id: `s${v}-${at}`, path });
  return { ...e, geo: { ...e.geo, country: country(v) } };
}

/** Each visitor's pages on one day (from `day`, ms), a second apart. */
function day(day: number, visitors: number[]): StoredEvent[] {
  const out: StoredEvent[] = [];
  let t = day;
  for (const v of visitors) for (const p of pagesOf(v)) out.push(view(v, p, t += 1_000));
  return out;
}

const lists: AggregateOptions[] = [
  { metrics: ["pageviews", "viewers"], breakdown: ["page"] },
  { metrics: ["visitors"], breakdown: ["page"] },
  // a list sorted by visitors: its union is counted while the parts are read and kept as it is
  { metrics: ["visitors"], breakdown: ["country"] },
];

async function askAll(site: Site, rollups: RollupSource, what: string) {
  const got = await rollups.answer(scope, lists);
  lists.forEach((o, i) => {
    assert.ok(got[i], `${what}: answered from rollups`);
    assert.deepEqual(got[i], expected(site, scope, o), `${what}: ${JSON.stringify(o)}`);
  });
}

for (const background of [false, true]) {
  Deno.test(
    `kept lists of dense and sparse values: the second ask and a growing tail equal the reference (${
      background ? "built while idle" : "built by the second ask"
    })`,
    async () => {
      const site = await openSite(NOW);
      try {
        const all = Array.from({ length: VISITORS }, (_, v) => v);
        await site.add(day(NOW - 5 * DAY, all));
        await site.compact();
        // a second part: the same visitors on another day (a value's members in both), and some new ones' pages
        await site.add(day(NOW - 3 * DAY, all.filter((v) => v % 2 === 0)));
        await site.compact();
        const rollups = new RollupSource(site.deps, new Source(site.deps));
        rollups.backgroundLists = background;
        await askAll(site, rollups, "cold");
        assert.equal(rollups.listsFromKept, 0);
        if (background) await rollups.listsSettled();
        await askAll(site, rollups, "second");
        assert.equal(rollups.listsFromKept, 3, "every list answered from a kept one");
        assert.deepEqual(
          rollups.listBuilds,
          background ? { background: 2, inAnswer: 0 } : { background: 0, inAnswer: 2 },
        );
        // the raw tail: members of a value viewing it again (not added) and others (added), a new visitor, a
        // new page
        const t = NOW - 2 * HOUR;
        await site.add([
          view(7, "/few", t), // a member of /few
          view(5, "/few", t + MINUTE), // not one
          view(VISITORS - 1, "/last", t + 2 * MINUTE), // the one member of /last
          view(0, "/fiftieth", t + 3 * MINUTE), // a member
          view(1, "/fiftieth", t + 4 * MINUTE), // not one
          view(3, "/third", t + 5 * MINUTE), // a member (dense)
          view(4, "/third", t + 6 * MINUTE), // not one
          view(VISITORS + 5, "/third", t + 7 * MINUTE), // a new visitor number
          view(97, "/new", t + 8 * MINUTE), // a page the parts lack
        ]);
        await askAll(site, rollups, "with a tail");
        await site.add([view(VISITORS + 6, "/few", t + 9 * MINUTE), view(400, "/few", t + 10 * MINUTE)]);
        await askAll(site, rollups, "with more tail");
        assert.equal(rollups.listsFromKept, 9, "every ask after the first from the kept lists");
      } finally {
        await site.close();
      }
    },
  );
}
