/**
 * behavior_explain_change under a saved cohort: a conversion rate beside its units tells how many converted,
 * so where 1 to 4 converted (or did not) in a period the question is refused (422, as for a cohort of 1 to 4
 * visitors): no total, segment or (other) shows it; without a cohort the rates are exact. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-18T12:00:00Z");
let seq = 0;
const visit = (v: string, at: number, buys: boolean) => {
  const base = { anonymous_id: v, session_id: `s-${v}`, platform: "web", screen: "/" };
  const props = { path: "/", url: "https://acme.test/", referrer: "https://www.google.com/" };
  const out: Record<string, unknown>[] = [
    {
      ...base,
      event_id: crypto.randomUUID(),
      sequence_no: seq++,
      event_type: "$pageview",
      device_time: new Date(at).toISOString(),
      properties: props,
    },
  ];
  if (buys) {
    out.push({
      ...base,
      event_id: crypto.randomUUID(),
      sequence_no: seq++,
      event_type: "purchase",
      device_time: new Date(at + 1).toISOString(),
      properties: { path: "/", url: "https://acme.test/" },
    });
  }
  return out;
};

Deno.test("explain a change under a cohort: a conversion rate of 1 to 4 converted is not told", async () => {
  const site = await openSite({
    now: NOW - 7 * DAY,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // the week before: 10 visitors from Google, 3 buy; this week 10 others, 8 buy
    for (let i = 0; i < 10; i++) await site.ingest(visit(`p${i}`, NOW - 7 * DAY - 3_600_000 + i, i < 3));
    site.deps.clock.set(NOW);
    for (let i = 0; i < 10; i++) await site.ingest(visit(`n${i}`, NOW - 3_600_000 + i, i < 8));
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "all", {
      kind: "page",
      path: "/",
      window: { last_days: 400 },
    });
    const ask = {
      period: "last_7_days",
      metric: "conversion_rate",
      conversion_event: "purchase",
      dimensions: ["channel"],
    };
    const plain = await site.read("behavior_explain_change", ask);
    assert.deepEqual([plain.total.value, plain.total.previous], [0.8, 0.3]);

    // under the cohort: 3 of 10 converted the week before, 2 of 10 did not this week: refused, naming why
    const res = await site.ask("behavior_explain_change", { ...ask, cohort: "all" });
    const body = await res.json();
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(JSON.stringify(body), /small-group rule/);
    assert.ok(!JSON.stringify(body).includes("0.3"), JSON.stringify(body));
  } finally {
    await site.close();
  }
});
