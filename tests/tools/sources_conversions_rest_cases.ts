/**
 * behavior_sources under a saved cohort: a row's conversions where 1 to 4 of its visitors did not convert are
 * withheld with the rate (visitors less conversions would tell those few, as behavior_overview withholds engaged
 * visitors); with 5 or more on both sides, and without a cohort, they are exact. Real HTTP ingest and reads on
 * a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");
let seq = 0;
const visit = (v: string, buys: boolean, referrer: string) => {
  const base = { anonymous_id: v, session_id: `s-${v}`, platform: "web", screen: "/" };
  const at = (k: number) => new Date(NOW - 3_600_000 + seq * 10 + k).toISOString();
  const out: Record<string, unknown>[] = [{
    ...base,
    event_id: crypto.randomUUID(),
    sequence_no: seq++,
    event_type: "$pageview",
    device_time: at(0),
    properties: { path: "/", url: "https://acme.test/", referrer },
  }];
  if (buys) {
    out.push({
      ...base,
      event_id: crypto.randomUUID(),
      sequence_no: seq++,
      event_type: "purchase",
      device_time: at(1),
      properties: { path: "/", url: "https://acme.test/" },
    });
  }
  return out;
};

Deno.test("sources under a cohort: conversions are withheld where 1 to 4 visitors did not convert", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // from Google 10 visitors, 8 buy; from Bing 10 visitors, 5 buy
    for (let i = 0; i < 10; i++) await site.ingest(visit(`g${i}`, i < 8, "https://www.google.com/"));
    for (let i = 0; i < 10; i++) await site.ingest(visit(`b${i}`, i < 5, "https://www.bing.com/"));
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "all", { kind: "page", path: "/" });
    type Row = { name: string; visitors: unknown; conversions: unknown; conversion_rate: unknown };
    const source = (a: Record<string, unknown>, name: string) =>
      (a.sources as Row[]).find((x) => x.name.toLowerCase().includes(name))!;
    const ask = { period: "today", conversion_event: "purchase" };

    const plain = await site.read("behavior_sources", ask);
    assert.deepEqual([source(plain, "google").conversions, source(plain, "google").conversion_rate], [
      8,
      0.8,
    ]);

    const a = await site.read("behavior_sources", { ...ask, cohort: "all" });
    const google = source(a, "google"), bing = source(a, "bing");
    assert.equal(google.visitors, 10);
    assert.deepEqual([google.conversions, google.conversion_rate], [null, null]);
    assert.deepEqual([bing.conversions, bing.conversion_rate], [5, 0.5]);
  } finally {
    await site.close();
  }
});
