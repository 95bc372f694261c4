/**
 * A pageview's `referrer` is kept as its origin only (docs/events.md: "the server keeps only its host"): the
 * previous page's query (a reset token, an e-mail address) never reaches storage or an answer, while source,
 * channel and referring host are still taken from the whole URL. Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");

Deno.test("ingest: a referrer keeps its origin only; attribution still reads it", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    const referrers = [
      "https://acme.test/reset-password?token=SECRET0&uid=42",
      "https://www.google.com/search?q=jane+roe+diagnosis",
      "not a url",
    ];
    for (const [k, referrer] of referrers.entries()) {
      for (let v = 0; v < 6; v++) {
        await site.ingest([{
          event_id: crypto.randomUUID(),
          anonymous_id: `v${k}-${v}`,
          session_id: `s${k}-${v}`,
          sequence_no: 0,
          platform: "web",
          event_type: "$pageview",
          screen: "/welcome",
          device_time: new Date(NOW - 3_600_000 + v).toISOString(),
          properties: { path: "/welcome", url: "https://acme.test/welcome", referrer },
        }]);
      }
    }
    const props = await site.read("behavior_event_properties", { event: "$pageview", period: "today" });
    const text = JSON.stringify(props);
    assert.ok(!text.includes("SECRET0") && !text.includes("jane"), text);
    assert.ok(!text.includes("not a url"), text);
    assert.ok(text.includes("https://www.google.com"), text);
    const sources = await site.read("behavior_sources", { period: "today" });
    assert.ok(
      (sources.channels as { name: string; visitors: number }[]).some((c) =>
        c.name === "Organic Search" && c.visitors === 6
      ),
      JSON.stringify(sources.channels),
    );
  } finally {
    await site.close();
  }
});
