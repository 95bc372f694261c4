/**
 * behavior_events under a saved cohort: a name's `previous_events` sent by 1 to 4 of the cohort's visitors in
 * the previous period reads "fewer than 5" (rule 5), as behavior_trends reads the same count; sent by 5 or
 * more it is exact, and without a cohort counts are exact. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";
import { saveCohort } from "../helpers/saved.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-18T09:30:00Z");

// a pageview of "/" (the cohort: visitors who viewed it), then n events of the type
const events = (v: string, at: number, type: string, n: number) =>
  Array.from({ length: n + 1 }, (_, k) => ({
    event_id: crypto.randomUUID(),
    anonymous_id: v,
    session_id: `s-${v}-${at}`,
    sequence_no: k,
    platform: "web",
    event_type: k === 0 ? "$pageview" : type,
    screen: "/",
    properties: { path: "/", url: "https://acme.test/" },
    device_time: new Date(at + k).toISOString(),
  }));

Deno.test("events under a cohort: a previous count of 1 to 4 visitors reads fewer than 5", async () => {
  const site = await openSite({
    now: NOW - 8 * DAY,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // the week before: 2 visitors export 10 times each, 5 visitors import once each
    for (let i = 0; i < 2; i++) await site.ingest(events(`before${i}`, NOW - 8 * DAY, "export", 10));
    for (let i = 0; i < 5; i++) await site.ingest(events(`imp${i}`, NOW - 8 * DAY, "import", 1));
    site.deps.clock.set(NOW);
    // this week: 6 visitors export and import once each
    for (let i = 0; i < 6; i++) {
      await site.ingest([
        ...events(`now${i}`, NOW - 3_600_000, "export", 1),
        ...events(`n2${i}`, NOW - 3_600_000, "import", 1),
      ]);
    }
    await saveCohort(site.deps, site.t.org, site.t.touchpoint, "all", {
      kind: "page",
      path: "/",
      window: { last_days: 400 },
    });
    type Row = { name: string; previous_events: unknown };
    const of = (a: Record<string, unknown>, name: string) =>
      (a.events as Row[]).find((e) => e.name === name)!;

    const plain = await site.read("behavior_events", { period: "last_7_days" });
    assert.equal(of(plain, "export").previous_events, 20);

    const a = await site.read("behavior_events", { period: "last_7_days", cohort: "all" });
    assert.equal(of(a, "export").previous_events, "fewer than 5");
    assert.equal(of(a, "import").previous_events, 5);
    assert.ok((a.notices as string[]).some((n) => n.includes("fewer than 5")), JSON.stringify(a.notices));
  } finally {
    await site.close();
  }
});
