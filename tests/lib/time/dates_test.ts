import assert from "node:assert/strict";
import { localDateOf, startOfLocalDay } from "../../../lib/time/dates.ts";
import { zonedParts } from "../../../lib/time/zone.ts";

const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("dates: a day whose midnight DST skips starts at the first instant of that date, not the day before", () => {
  // Santiago springs forward at 2026-09-06 00:00 (UTC-4) to 01:00 (UTC-3).
  const santiago = startOfLocalDay({ y: 2026, m: 9, d: 6 }, "America/Santiago");
  assert.deepEqual(localDateOf(santiago, "America/Santiago"), { y: 2026, m: 9, d: 6 });
  assert.equal(iso(santiago), "2026-09-06T04:00:00.000Z");
  assert.equal(zonedParts(santiago, "America/Santiago").hour, 1);
  assert.deepEqual(localDateOf(santiago - 1000, "America/Santiago"), { y: 2026, m: 9, d: 5 });
  // Havana springs forward at 2026-03-08 00:00 (UTC-5) to 01:00 (UTC-4).
  const havana = startOfLocalDay({ y: 2026, m: 3, d: 8 }, "America/Havana");
  assert.deepEqual(localDateOf(havana, "America/Havana"), { y: 2026, m: 3, d: 8 });
  assert.deepEqual(localDateOf(havana - 1000, "America/Havana"), { y: 2026, m: 3, d: 7 });
});

Deno.test("dates: ordinary and DST days still start at local midnight", () => {
  assert.equal(iso(startOfLocalDay({ y: 2026, m: 3, d: 29 }, "Europe/Berlin")), "2026-03-28T23:00:00.000Z");
  assert.equal(iso(startOfLocalDay({ y: 2026, m: 10, d: 25 }, "Europe/Berlin")), "2026-10-24T22:00:00.000Z");
  assert.equal(iso(startOfLocalDay({ y: 2026, m: 9, d: 7 }, "America/Santiago")), "2026-09-07T03:00:00.000Z");
});
