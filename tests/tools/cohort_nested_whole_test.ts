/**
 * Rule 5 under a saved cohort: a list whose whole is itself 1 to 4 visitors names none of its groups (they fold
 * into "(other)", as the docs say). Failed before the fix. Asked through the HTTP read API over a KV store.
 */
import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { asked, type Json, outputOf, visit, withCohort } from "./cohort_nested.ts";

Deno.test("cohort: a list whose whole is 1 to 4 visitors names none of its groups", async () => {
  await withCohort((t) => [
    ...visit(t, ["/"], { geo: { country: "FR", city: null, asn: null, as_org: null } }),
    ...visit(t, ["/"], {
      geo: { country: "IT", city: null, asn: null, as_org: null },
      device_type: "mobile",
    }),
  ], async (h) => {
    const a = await h.ask("behavior_overview", asked);
    assert.equal(a.visitors.value, "fewer than 5");
    for (const list of ["top_pages", "countries", "devices", "sources"]) {
      const names = (a[list] as Json[]).map((x) => x.name ?? x.country ?? x.device);
      assert.deepEqual(names, ["(other)"], `${list}: ${JSON.stringify(a[list])}`);
    }
    assert.deepEqual(checkAnswer(a, { output: outputOf("behavior_overview") }), []);
    // a trends split folds the same, and no point names a device through its `by`
    const t = await h.ask("behavior_trends", {
      ...asked,
      event: "look",
      split_by: "device",
      metric: "events",
    });
    assert.deepEqual(t.splits.map((x: Json) => x.name), ["(other)"], JSON.stringify(t.splits));
    for (const p of t.series as Json[]) {
      assert.deepEqual(
        Object.keys((p.by ?? {}) as Json).filter((k) => k !== "(other)"),
        [],
        JSON.stringify(p),
      );
    }
    assert.deepEqual(checkAnswer(t, { output: outputOf("behavior_trends") }), []);
  });
});
