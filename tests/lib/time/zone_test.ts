import assert from "node:assert/strict";
import { zone } from "../../../lib/time/zone.ts";

Deno.test("zone: local wall time equals Intl's at every instant of a year, in zones with odd offsets and DST", () => {
  for (
    const tz of [
      "Europe/Berlin",
      "America/New_York",
      "Australia/Lord_Howe",
      "Asia/Kathmandu",
      "America/Santiago",
    ]
  ) {
    const z = zone(tz);
    const f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    for (
      let t = Date.parse("2026-01-01T00:00:00Z");
      t < Date.parse("2027-01-01T00:00:00Z");
      t += 37 * 60_000 + 13_000
    ) {
      const p: Record<string, number> = {};
      for (const x of f.formatToParts(new Date(t))) if (x.type !== "literal") p[x.type] = Number(x.value);
      assert.equal(
        Math.floor(z.wall(t) / 60_000) * 60_000,
        Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute),
        `${tz} at ${new Date(t).toISOString()}`,
      );
    }
  }
});
