/**
 * A period's list is kept (kept_lists.ts) when it is asked again after an answer of it was given, not when two
 * questions ask it at once: a weekly report's overview and pages tool both list the week's pages at once, and
 * the second answer built the kept list in the report's cold run (~0.3-0.7 s of its main thread at 10M
 * events) for asks that may never come. Answers equal the reference either way.
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

Deno.test("kept lists: built when a list is asked again after an answer, not by two questions asked at once", async () => {
  const site = await openSite(NOW);
  try {
    await site.add(events());
    await site.compact();
    // asked one after the other: the second answer keeps the list, the third is answered from it
    const one = new RollupSource(site.deps, new Source(site.deps));
    await ask(site, one);
    await ask(site, one);
    assert.equal(one.listsFromKept, 0);
    await ask(site, one);
    assert.equal(one.listsFromKept, 1, "kept by the second ask");
    // asked twice at once: neither keeps it; the next ask (after those answers) does, the one after reads it
    const two = new RollupSource(site.deps, new Source(site.deps));
    await Promise.all([ask(site, two), ask(site, two)]);
    await ask(site, two);
    assert.equal(two.listsFromKept, 0, "not kept by questions asked at once");
    await ask(site, two);
    assert.equal(two.listsFromKept, 1, "kept by the ask after them");
  } finally {
    await site.close();
  }
});
