/**
 * behavior_trends under a saved cohort: a bucket of 1 to 4 visitors reads "fewer than 5", and the total less
 * the buckets still shown must not tell it (review #5): the smallest bucket of 5 or more is withheld beside it.
 * Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";
import { FEWER_THAN_5 } from "../../lib/answers/privacy.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");

type Point = Record<string, unknown> & { bucket: string };

/** The total less the buckets that show a number: what a reader could work out for the others. */
function rest(total: unknown, series: Point[], metric: string): number | null {
  if (typeof total !== "number") return null;
  return series.reduce((n, p) => n - (typeof p[metric] === "number" ? p[metric] as number : 0), total);
}

Deno.test("trends under a cohort: the total less the shown buckets never tells a bucket of 1 to 4", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 3 visitors at 08:10, 10 at 09:10 (and 6 at 07:10: the smallest bucket of 5 or more)
    const plan = [...Array(6).fill(7), ...Array(3).fill(8), ...Array(10).fill(9)];
    for (let v = 0; v < plan.length; v++) {
      const at = Date.parse(`2026-11-18T0${plan[v]}:10:00Z`) + v * 1000;
      site.deps.clock.set(at);
      await site.ingest([pageviewAt(v, "/", at)]);
    }
    site.deps.clock.set(NOW);
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "home", { kind: "page", path: "/" });

    for (const metric of ["visitors", "events"]) {
      const plain = await site.read("behavior_trends", { period: "today", interval: "hour", metric });
      const hours = (plain.series as Point[]).filter((p) => p[metric] !== 0).map((
        p,
      ) => [p.bucket, p[metric]]);
      assert.deepEqual(hours, [["2026-11-18T07:00", 6], ["2026-11-18T08:00", 3], ["2026-11-18T09:00", 10]]);

      const a = await site.read("behavior_trends", {
        period: "today",
        interval: "hour",
        metric,
        cohort: "home",
      });
      const series = a.series as Point[];
      const at = (h: string) => series.find((p) => p.bucket === `2026-11-18T0${h}:00`)![metric];
      assert.equal(at("8"), FEWER_THAN_5, `${metric}: the bucket of 3 reads "fewer than 5"`);
      assert.equal(a.total.value, 19, `${metric}: the total stays`);
      assert.equal(at("7"), null, `${metric}: the smallest bucket of 5 or more is withheld beside it`);
      assert.equal(at("9"), 10, `${metric}: the others stay`);
      const left = rest(a.total.value, series, metric);
      assert.ok(left === null || left >= 5, `${metric}: the total less the shown buckets is ${left}`);
    }
  } finally {
    await site.close();
  }
});
