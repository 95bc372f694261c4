/**
 * behavior_retention under a saved cohort: where 1 to 4 of a cohort did not come back, the count that came back
 * (and its rate, and the average curve's point it goes into) is withheld, since the cohort's visitors less it
 * would tell them (review #13; the funnel's drop-offs and the bounce rate follow the same rule). Real HTTP
 * ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const DAY = 86_400_000, D0 = Date.parse("2026-11-16T10:00:00Z"), NOW = Date.parse("2026-11-18T12:00:00Z");

Deno.test("retention under a cohort: 1 to 4 who did not come back are not the cohort less the returned", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 12 visitors on the 16th, 9 of them back on the 17th
    for (let v = 0; v < 12; v++) {
      site.deps.clock.set(D0 + v * 1000);
      await site.ingest([pageviewAt(v, "/", D0 + v * 1000, `s${v}-0`)]);
    }
    for (let v = 0; v < 9; v++) {
      site.deps.clock.set(D0 + DAY + v * 1000);
      await site.ingest([pageviewAt(v, "/", D0 + DAY + v * 1000, `s${v}-1`)]);
    }
    site.deps.clock.set(NOW);
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });
    const ask = { period: "2026-11-16..2026-11-18", interval: "day" };

    const plain = await site.read("behavior_retention", ask);
    assert.deepEqual(plain.cohorts[0].returned.slice(0, 2), [12, 9], "without a cohort the counts are exact");

    const a = await site.read("behavior_retention", { ...ask, cohort: "home" });
    const first = a.cohorts[0];
    assert.equal(first.visitors, 12);
    assert.equal(first.returned[0], 12, "all 12 in their own day: nobody left out");
    assert.equal(first.returned[1], null, "12 less 9 would tell the 3 who did not come back");
    assert.equal(first.rates[1], null, "nor the rate");
    assert.equal(a.average_curve[1], null, "nor the average curve's point it goes into");
  } finally {
    await site.close();
  }
});
