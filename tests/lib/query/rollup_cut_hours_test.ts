/**
 * A period that cuts a part's hour (rows on both sides of one of its ends: a previous window ends at now's
 * time of day) stays on rollups: the cut parts' rows in the period are read from the parts beside the other
 * parts' rollups (RollupSource.inPeriod). Before, such a question went to the scan (at 10M events
 * explain-a-change's previous week was scanned each ask). Answers equal the reference's and the scan's.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import type { AttributionOptions } from "../../../lib/query/sequence_types.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import {
  DAY,
  DST_NOW as NOW,
  expected,
  MINUTE,
  openSite,
  scannedAttribution,
  sortedAttribution,
} from "./rollup_site.ts";

const BASE = Date.parse("2026-10-28T00:00:00Z");

/** Events every 7 minutes over three days: visitors, sessions, pages, sources and types varying. */
function events(): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let m = 0, k = 0; m < 3 * 24 * 60; m += 7, k++) {
    const at = BASE + m * MINUTE;
    out.push(ev({
      id: `e${k}`,
      received_at: at,
      device_time: new Date(at).toISOString(),
      sequence_no: k % 4,
      anonymous_id: `v${k % 11}`,
      session_id: `s${Math.floor(m / 45) % 5}`,
      event_type: k % 5 === 0 ? "sign_up" : "$pageview",
      path: ["/", "/a", "/b"][k % 3],
      source: ["google", "(direct)"][k % 2],
      channel: (["Organic Search", "Direct"] as const)[k % 2],
      geo: { country: ["DE", "GB"][k % 2], city: null, asn: null, as_org: null },
      device_type: (["desktop", "mobile"] as const)[k % 2],
      browser: ["Chrome", "Firefox"][k % 2],
    }));
  }
  return out;
}

Deno.test("rollups: a period cutting a part's hours is answered from rollups, the cut parts' rows read beside, exactly", async () => {
  const site = await openSite(NOW);
  await site.add(events());
  await site.compact();
  const rollups = site.rollups();
  const scans = new ScanContexts(new Source(site.deps));
  // from 00:20 of the first day to 10:37 of the third: both ends inside an hour with rows on both sides
  const scope: Scope = {
    org: "org1",
    env: "production",
    from: BASE + 20 * MINUTE,
    to: BASE + 2 * DAY + 10 * 60 * MINUTE + 37 * MINUTE,
    timezone: "UTC",
    filters: [],
  };
  const explain: AttributionOptions[] = [
    { fields: ["channel", "source", "page", "country", "device_type", "browser"], unit: "visitor" },
    { fields: ["page"], unit: "session" },
    { fields: ["source"], unit: "visitor", goal: { event_type: "sign_up" } },
  ];
  for (const o of explain) {
    const want = await scannedAttribution(scans, scope, o);
    for (let ask = 0; ask < 2; ask++) {
      const got = await rollups.attribution(scope, o);
      assert.ok(got, `explain-a-change's ${JSON.stringify(o)} answered from rollups`);
      assert.deepEqual(sortedAttribution(got), want, JSON.stringify(o));
    }
  }
  const aggregates: AggregateOptions[] = [
    { metrics: ["visitors", "pageviews", "sessions", "bounce_rate"] },
    { metrics: ["pageviews", "visitors"], breakdown: ["page"] },
    { metrics: ["visitors", "sessions"], breakdown: ["source"] },
  ];
  const got = await rollups.answer(scope, aggregates);
  aggregates.forEach((o, i) => {
    assert.ok(got[i], `${JSON.stringify(o)} answered from rollups`);
    assert.deepEqual(got[i], expected(site, scope, o), JSON.stringify(o));
  });
  await site.close();
});

Deno.test("rollups: the cut hours' rows of several periods stay kept for the next asks (one engine, many tools)", async () => {
  const site = await openSite(NOW);
  await site.add(events());
  await site.compact();
  const rollups = site.rollups();
  const kept = () => (rollups as unknown as { r: { cutRowsKept: { size: number } } }).r.cutRowsKept.size;
  const o: AggregateOptions = { metrics: ["visitors", "pageviews"] };
  // six periods, each ending inside another hour of the third day: each cuts its own hour
  const scopes: Scope[] = Array.from({ length: 6 }, (_, i) => ({
    org: "org1",
    env: "production",
    from: BASE + 20 * MINUTE,
    to: BASE + 2 * DAY + (i + 1) * 60 * MINUTE + 37 * MINUTE,
    timezone: "UTC",
    filters: [],
  }));
  for (const scope of scopes) {
    const [got] = await rollups.answer(scope, [o]);
    assert.ok(got, "answered from rollups");
    assert.deepEqual(got, expected(site, scope, o));
  }
  // every period's cut rows are still kept (before, the last 4: the first periods were read again)
  assert.ok(kept() >= scopes.length + 1, `${kept()} cut hours kept`);
  await site.close();
});
