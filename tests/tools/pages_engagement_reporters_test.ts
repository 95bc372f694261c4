/**
 * behavior_pages: engagement time and scroll depth are means over page-leave reports, so they are withheld
 * where fewer than 5 visitors reported them, however many viewed the page (one visitor's own time and depth
 * were shown). Real HTTP ingest and reads on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite } from "../helpers/site.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");
let seq = 0;
const ev = (v: string, path: string, type: string, props: Record<string, unknown> = {}) => ({
  event_id: crypto.randomUUID(),
  anonymous_id: v,
  session_id: `s-${v}`,
  sequence_no: seq++,
  platform: "web",
  event_type: type,
  screen: path,
  device_time: new Date(NOW - 3_600_000 + seq).toISOString(),
  properties: { path, url: `https://acme.test${path}`, ...props },
});
const leave = (v: string, path: string, ms: number, depth: number) =>
  ev(v, path, "$pageleave", { engagement_time_ms: ms, depth_percent: depth });

Deno.test("pages: engagement time and depth of 1 to 4 reporting visitors are withheld; of 5 or more shown", async () => {
  const site = await openSite({
    now: NOW,
    config: { readKeyRatePerMinute: 1e6, publicKeyRatePerMinute: 1e6 },
  });
  try {
    // 10 visitors view /a, one reports leaving it; 6 view /b and all report
    for (let v = 0; v < 10; v++) {
      const batch = [ev(`a${v}`, "/a", "$pageview")];
      if (v === 0) batch.push(leave(`a${v}`, "/a", 123_456, 37));
      await site.ingest(batch);
    }
    for (let v = 0; v < 6; v++) {
      await site.ingest([ev(`b${v}`, "/b", "$pageview"), leave(`b${v}`, "/b", 10_000, 50)]);
    }
    const a = await site.read("behavior_pages", { period: "today" });
    type Row = { page: string; visitors: number; engagement_time_s: unknown; scroll_depth_percent: unknown };
    const of = (p: string) => (a.pages as Row[]).find((x) => x.page === p)!;
    assert.equal(of("/a").visitors, 10);
    assert.deepEqual([of("/a").engagement_time_s, of("/a").scroll_depth_percent], [null, null]);
    assert.deepEqual([of("/b").engagement_time_s, of("/b").scroll_depth_percent], [10, 50]);
  } finally {
    await site.close();
  }
});
