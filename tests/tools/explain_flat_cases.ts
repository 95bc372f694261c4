/**
 * behavior_explain_change when the total does not move but its parts do (review #22: yesterday 10 visitors
 * from one country, today 5 from it and 5 from another): the summary says the total is flat and names the two
 * parts that moved against each other, instead of only "did not change". Real HTTP ingest (addresses in two
 * countries through the real geo index) and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageviewAt } from "../helpers/site.ts";

Deno.test("explain_change: a flat total names the parts that moved against each other", async () => {
  const yesterday = Date.parse("2026-11-17T10:00:00Z"), today = Date.parse("2026-11-18T10:00:00Z");
  const site = await openSite({
    now: Date.parse("2026-11-18T12:00:00Z"),
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6, trustProxy: true },
  });
  try {
    let v = 0;
    const add = async (n: number, day: number, ip: string) => {
      for (let i = 0; i < n; i++, v++) {
        site.deps.clock.set(day + v * 1000);
        await site.ingest([pageviewAt(v, "/", day + v * 1000)], { headers: { "x-forwarded-for": ip } });
      }
    };
    await add(10, yesterday, "81.2.69.20");
    await add(5, today, "81.2.69.20");
    await add(5, today, "2.125.160.5");
    site.deps.clock.set(Date.parse("2026-11-18T12:00:00Z"));
    const res = await site.ask("behavior_explain_change", { period: "today", dimensions: ["country"] });
    const a = await res.json();
    assert.equal(res.status, 200, JSON.stringify(a));
    const segments = a.dimensions[0].segments as { name: string; difference: number }[];
    const fell = segments.find((s) => s.difference === -5)!, rose = segments.find((s) => s.difference === 5)!;
    assert.ok(fell && rose, JSON.stringify(segments));
    assert.match(a.summary, /did not change: 10 in both periods/);
    assert.ok(
      a.summary.includes(`country ${rose.name} (+5)`) && a.summary.includes(`country ${fell.name} (-5)`),
      a.summary,
    );
  } finally {
    await site.close();
  }
});
