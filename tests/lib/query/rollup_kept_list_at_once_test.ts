/**
 * A period's list (kept_lists.ts) is begun by the answer that read its rows and built after it: while the engine
 * is idle, or by the next question asking the list after that answer, and then that question is answered from
 * it. Questions asked at once (a weekly report's overview and pages tool both list the week's pages) do not
 * build it: the cold report paid ~0.3-0.7 s of its main thread at 10M events for asks that may never come.
 * Answers equal the reference either way.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { DAY, expected, MINUTE, openSite, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const scope: Scope = { org: "org1", env: "production", from: NOW - 7 * DAY, to: NOW, timezone: "UTC" };
const pages: AggregateOptions = { metrics: ["pageviews", "viewers"], breakdown: ["page"] };

function events(): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let i = 0; i < 200; i++) {
    out.push(ev({
      id: `k${i}`,
      received_at: NOW - 6 * DAY + i * 37 * MINUTE,
      anonymous_id: `v${i % 23}`,
      session_id: `s${i % 41}`,
      path: `/p${i % 7}`,
    }));
  }
  return out;
}

async function ask(site: Site, rollups: RollupSource) {
  const [got] = await rollups.answer(scope, [pages]);
  assert.ok(got, "answered from rollups");
  assert.deepEqual(got, expected(site, scope, pages));
}

Deno.test("kept lists: built after the answer that read the rows, not by questions asked at once", async () => {
  const site = await openSite(NOW);
  try {
    await site.add(events());
    await site.compact();
    // asked one after the other, nothing run in between (an isolate frozen once its response is sent): the
    // second ask builds the list the first began and is answered from it
    const one = new RollupSource(site.deps, new Source(site.deps));
    one.backgroundLists = false;
    await ask(site, one);
    assert.equal(one.listsFromKept, 0);
    assert.deepEqual(one.listBuilds, { background: 0, inAnswer: 0 }, "not built by the answer itself");
    await ask(site, one);
    assert.equal(one.listsFromKept, 1, "the second ask answered from the list");
    assert.deepEqual(one.listBuilds, { background: 0, inAnswer: 1 });
    // asked twice at once: neither builds it; the next ask (after those answers) does and is answered from it
    const two = new RollupSource(site.deps, new Source(site.deps));
    two.backgroundLists = false;
    await Promise.all([ask(site, two), ask(site, two)]);
    assert.deepEqual(two.listBuilds, { background: 0, inAnswer: 0 }, "not built by questions asked at once");
    assert.equal(two.listsFromKept, 0);
    await ask(site, two);
    assert.deepEqual(two.listBuilds, { background: 0, inAnswer: 1 }, "built by the ask after them");
    assert.equal(two.listsFromKept, 1);
    // and while the engine is idle: built in the background, no question pays for it
    const three = new RollupSource(site.deps, new Source(site.deps));
    await Promise.all([ask(site, three), ask(site, three)]);
    await three.listsSettled();
    assert.deepEqual(three.listBuilds, { background: 1, inAnswer: 0 }, "built while idle");
    await ask(site, three);
    assert.equal(three.listsFromKept, 1);
  } finally {
    await site.close();
  }
});
