/**
 * The web SDK's `sampleRate` keeps only some visitors' events (sent with `context.sample_rate`). Before, the
 * service ignored it: an answer over sampled traffic gave the raw counts as if complete and said nothing.
 * Now ingest notes the days (and lowest rate) per environment, and answers whose period touches one say so;
 * counts stay the events received (not scaled). Through the HTTP API on a real KV file.
 */
import assert from "node:assert/strict";
import { openSite, pageview } from "../helpers/site.ts";

const sampled = (visitor: number, seq: number, path: string, rate: number) => ({
  ...pageview(visitor, seq, path),
  context: { sample_rate: rate, sdk_version: "1.0.0" },
});

Deno.test("answers over days the web SDK sampled say so with the rate; counts are not scaled", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    // a full day (rate 1, or none) leaves no note
    assert.equal((await s.ingest([sampled(1, 0, "/", 1), pageview(2, 0, "/")])).status, 204);
    assert.equal(await s.count(["sampled"]), 0);
    let a = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.ok(!a.notices.some((n: string) => n.includes("sampl")), a.notices);

    assert.equal((await s.ingest([sampled(3, 0, "/pricing", 0.5), sampled(4, 0, "/", 0.25)])).status, 204);
    assert.equal((await s.ingest([sampled(5, 0, "/", 0.5)])).status, 204);
    a = await s.read("behavior_overview", { period: "2026-11-18..2026-11-18" });
    assert.equal(a.visitors.value, 5, "counts are the events received");
    const note = a.notices.find((n: string) => n.startsWith("web SDK sampling"));
    assert.ok(note, a.notices);
    assert.match(note, /on 1 day of this period .*sampleRate as low as 0\.25, 25%\).*not scaled up/);
    // every answer with a period reads the same note
    const pages = await s.read("behavior_pages", { period: "2026-11-18..2026-11-18" });
    assert.ok(pages.notices.some((n: string) => n.startsWith("web SDK sampling")), pages.notices);

    // a period (and the one it compares against) without a sampled day says nothing
    s.deps.clock.set(Date.parse("2026-11-26T12:00:00Z"));
    const later = await s.read("behavior_overview", { period: "2026-11-25..2026-11-26" });
    assert.ok(!later.notices.some((n: string) => n.includes("sampl")), later.notices);
  } finally {
    await s.close();
  }
});

Deno.test("the period compared against is told of its sampled days too", async () => {
  const s = await openSite({ now: Date.parse("2026-11-18T12:00:00Z") });
  try {
    assert.equal((await s.ingest([sampled(1, 0, "/", 0.1)])).status, 204);
    s.deps.clock.set(Date.parse("2026-11-19T12:00:00Z"));
    const a = await s.read("behavior_overview", { period: "2026-11-19..2026-11-19" });
    assert.ok(
      a.notices.some((n: string) => /on 1 day of this period or the one compared .*0\.1, 10%/.test(n)),
      a.notices,
    );
  } finally {
    await s.close();
  }
});
