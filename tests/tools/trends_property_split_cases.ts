/**
 * behavior_trends split by an event property's value (no filter): a value's figure in one point of 1 to 4
 * visitors reads "fewer than 5", as it does under a filter on that value, and neither the point's total nor the
 * value's period figure less the figures shown tells it. Filtered to one value whose every day is 1 to 4, the
 * withheld total is said in words. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt, type Site } from "../helpers/site.ts";
import { FEWER_THAN_5, isFew } from "../../lib/answers/privacy.ts";

const NOW = Date.parse("2026-11-18T09:30:00Z");
type Point = Record<string, unknown> & { bucket: string; by?: Record<string, unknown> };
type Split = Record<string, unknown> & { name: string };

/** A visitor's purchase with a plan on a day of November, at noon UTC. */
const purchase = (visitor: number, day: number, plan: string) => ({
  ...pageviewAt(visitor, "/checkout", Date.parse(`2026-11-${day}T12:00:00Z`) + visitor * 1000),
  event_type: "purchase",
  properties: { plan, path: "/checkout", url: "https://acme.test/checkout" },
});

/** Sends a batch as it arrives on a day of November at noon UTC, then turns the clock back to now. */
async function sendOn(site: Site, day: number, batch: unknown[]) {
  site.deps.clock.set(Date.parse(`2026-11-${day}T12:00:00Z`));
  const res = await site.ingest(batch);
  assert.ok(res.ok, await res.text());
  site.deps.clock.set(NOW);
}

/** The whole less the figures shown: what a reader works out for the ones not shown. */
const rest = (whole: unknown, figures: unknown[]) =>
  typeof whole !== "number"
    ? null
    : figures.reduce((n: number, f) => n - (typeof f === "number" ? f : 0), whole);

Deno.test("trends split by a property: a value's point of 1 to 4 visitors reads 'fewer than 5' and is not the rest of a line", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    let v = 0;
    const plan: [number, string, number][] = [
      [14, "enterprise", 5],
      [14, "pro", 6],
      [16, "enterprise", 1],
      [16, "pro", 7],
    ];
    for (const [day, value, n] of plan) {
      await sendOn(site, day, Array.from({ length: n }, () => purchase(v++, day, value)));
    }

    await checkSplit(site, ["enterprise", "pro"], true);
    // team: 6 visitors, 3 a day: every day of it is a small group, alone on its days
    for (const day of [15, 17]) {
      await sendOn(site, day, Array.from({ length: 3 }, () => purchase(v++, day, "team")));
    }
    await checkSplit(site, ["enterprise", "pro", "team"], false);
  } finally {
    await site.close();
  }
});

/** A split by plan asked for events and visitors: no figure of 1 to 4 and no line's rest tells one. */
async function checkSplit(site: Site, values: string[], cellsShown: boolean) {
  for (const metric of ["events", "visitors"]) {
    const a = await site.read("behavior_trends", {
      period: "last_7_days",
      event: "purchase",
      split_by: "property",
      property: "plan",
      metric,
      interval: "day",
    });
    const splits = a.splits as Split[];
    assert.deepEqual(splits.map((s) => s.name).sort(), values, metric);
    const series = a.series as Point[];
    const cell = (day: number, value: string) =>
      series.find((p) => p.bucket === `2026-11-${day}`)?.by?.[value];
    if (cellsShown) {
      assert.equal(cell(16, "enterprise"), FEWER_THAN_5, `${metric}: the day of 1 reads "fewer than 5"`);
    }
    for (const p of series) {
      const figures = Object.values(p.by ?? {});
      for (const f of figures) assert.ok(!isFew(f), `${metric} ${p.bucket}: a figure of 1 to 4: ${f}`);
      if (!figures.includes(FEWER_THAN_5)) continue;
      const r = rest(p[metric], figures);
      assert.ok(r === null || r === 0 || r >= 5, `${metric} ${p.bucket}: its total less its values is ${r}`);
    }
    for (const s of splits) {
      const row = series.map((p) => p.by?.[s.name]);
      if (!row.includes(FEWER_THAN_5)) continue;
      const r = rest(s[metric], row);
      assert.ok(r === null || r >= 5, `${metric} ${s.name}: its figure less its days is ${r} (${row})`);
    }
    assert.ok(
      (a.notices as string[]).some((n) => n.includes("fewer than 5") || n.includes("left out")),
      `${metric}: a notice says why: ${a.notices}`,
    );
  }
}

Deno.test("trends filtered on a property value: a total withheld beside days of 1 to 4 is said in a notice", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    for (let v = 0; v < 6; v++) await sendOn(site, v < 3 ? 15 : 17, [purchase(v, v < 3 ? 15 : 17, "team")]);
    const a = await site.read("behavior_trends", {
      period: "last_7_days",
      event: "purchase",
      property: "plan",
      property_value: "team",
      metric: "events",
      interval: "day",
    });
    assert.equal(a.total.value, null, "every day reads 'fewer than 5': the total would tell their sum");
    assert.ok(
      (a.notices as string[]).some((n) => /total/.test(n) && /withheld/.test(n)),
      `the withheld total is said in words: ${JSON.stringify(a.notices)}`,
    );
  } finally {
    await site.close();
  }
});
