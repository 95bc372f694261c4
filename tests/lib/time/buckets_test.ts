import assert from "node:assert/strict";
import { bucketOf, bucketsBetween } from "../../../lib/time/buckets.ts";
import { startOfLocalDay } from "../../../lib/time/dates.ts";
import { zone } from "../../../lib/time/zone.ts";

Deno.test("buckets: day buckets follow DST (23- and 25-hour days) in the organization's timezone", () => {
  const tz = "Europe/Berlin";
  const days = bucketsBetween(
    startOfLocalDay({ y: 2026, m: 10, d: 24 }, tz),
    startOfLocalDay({ y: 2026, m: 10, d: 27 }, tz),
    "day",
    tz,
  );
  assert.deepEqual(days.map((d) => d.label), ["2026-10-24", "2026-10-25", "2026-10-26"]);
  assert.equal(days[2].start - days[1].start, 25 * 3_600_000); // clocks go back on the 25th
  const spring = bucketsBetween(
    startOfLocalDay({ y: 2026, m: 3, d: 29 }, tz),
    startOfLocalDay({ y: 2026, m: 3, d: 30 }, tz),
    "hour",
    tz,
  );
  assert.equal(spring.length, 23);
  // the hour the autumn change repeats is two buckets, told apart by their UTC offsets; the day has 25 hours
  assert.equal(bucketOf(Date.parse("2026-10-25T00:30:00Z"), "hour", zone(tz)), "2026-10-25T02:00+02:00");
  assert.equal(bucketOf(Date.parse("2026-10-25T01:30:00Z"), "hour", zone(tz)), "2026-10-25T02:00+01:00");
  assert.equal(bucketOf(Date.parse("2026-10-25T02:30:00Z"), "hour", zone(tz)), "2026-10-25T03:00");
  const autumn = bucketsBetween(
    startOfLocalDay({ y: 2026, m: 10, d: 25 }, tz),
    startOfLocalDay({ y: 2026, m: 10, d: 26 }, tz),
    "hour",
    tz,
  );
  assert.equal(autumn.length, 25);
  assert.deepEqual(autumn.slice(1, 5).map((h) => h.label), [
    "2026-10-25T01:00",
    "2026-10-25T02:00+02:00",
    "2026-10-25T02:00+01:00",
    "2026-10-25T03:00",
  ]);
  assert.equal(autumn[3].start - autumn[2].start, 3_600_000);
  assert.deepEqual(spring.slice(1, 3).map((h) => h.label), ["2026-03-29T01:00", "2026-03-29T03:00"]);
  const kathmandu = bucketsBetween(
    Date.parse("2026-11-20T00:00:00Z"),
    Date.parse("2026-11-20T03:00:00Z"),
    "hour",
    "Asia/Kathmandu",
  );
  assert.deepEqual(kathmandu.map((h) => h.label), [
    "2026-11-20T05:00",
    "2026-11-20T06:00",
    "2026-11-20T07:00",
    "2026-11-20T08:00",
  ]);
  assert.equal(bucketOf(Date.parse("2026-11-22T23:30:00Z"), "day_of_week", zone(tz)), 1); // Monday 00:30 in Berlin
  assert.equal(bucketOf(Date.parse("2026-11-22T23:30:00Z"), "week", zone(tz)), "2026-11-23");
  assert.equal(bucketOf(Date.parse("2026-11-30T23:30:00Z"), "month", zone(tz)), "2026-12");
  assert.equal(bucketOf(Date.parse("2026-11-20T04:10:00Z"), "hour_of_day", zone("Asia/Kathmandu")), 9);
});
