/**
 * behavior_performance's `previous_p75` is a time of the previous period's visitors: it is given only when
 * that period's group was measured from 5 or more of them (a page of one visitor last week showed that
 * visitor's own LCP). Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-18T09:30:00Z");

const loadOf = (v: string, at: number, lcp: number) => {
  const time = (s: number) => new Date(at + s).toISOString();
  const base = { anonymous_id: v, session_id: `s-${v}`, platform: "web", screen: "/a" };
  const props = { path: "/a", url: "https://acme.test/a" };
  return [
    {
      ...base,
      event_id: crypto.randomUUID(),
      sequence_no: 0,
      event_type: "$pageview",
      properties: props,
      device_time: time(0),
    },
    {
      ...base,
      event_id: crypto.randomUUID(),
      sequence_no: 1,
      event_type: "$web_vitals",
      properties: { ...props, name: "LCP", metric: "LCP", value: lcp },
      device_time: time(1),
    },
  ];
};

Deno.test("performance: the previous period's p75 of 1 to 4 visitors is not given; of 5 or more it is", async () => {
  const site = await openSite({
    now: NOW - 8 * DAY,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // eight days ago one visitor loads /a slowly; a day later five more do, at 2 s
    await site.ingest(loadOf("lonely", NOW - 8 * DAY, 9876));
    site.deps.clock.set(NOW);
    for (let i = 0; i < 6; i++) await site.ingest(loadOf(`v${i}`, NOW - 3_600_000 + i * 1000, 1000 + i));
    const a = await site.read("behavior_performance", { period: "last_7_days" });
    const page = (a.groups as { name: string; vitals: { LCP: { p75: unknown; previous_p75: unknown } } }[])
      .find((g) => g.name === "/a")!;
    assert.equal(typeof page.vitals.LCP.p75, "number");
    assert.equal(page.vitals.LCP.previous_p75, null, JSON.stringify(page));
    assert.equal(a.overall.vitals.LCP.previous_p75, null, JSON.stringify(a.overall));

    // five visitors in the previous period: their p75 is shown
    site.deps.clock.set(NOW - 8 * DAY + 60_000);
    for (let i = 0; i < 4; i++) await site.ingest(loadOf(`w${i}`, NOW - 8 * DAY + 10_000 + i, 3000));
    site.deps.clock.set(NOW);
    const b = await site.read("behavior_performance", { period: "last_7_days" });
    assert.equal(b.overall.vitals.LCP.previous_p75, 3000);
  } finally {
    await site.close();
  }
});
