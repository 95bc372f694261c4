import assert from "node:assert/strict";
import fc from "fast-check";
import { resolvePeriod } from "../../../lib/answers/period.ts";
import { HttpError } from "../../../lib/errors.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("periods: last_7_days is today so far and the 6 days before, in the org timezone", () => {
  const p = resolvePeriod("last_7_days", NOW, "Europe/Berlin", 400);
  assert.equal(iso(p.from), "2026-11-13T23:00:00.000Z"); // 2026-11-14 00:00 in Berlin (UTC+1)
  assert.equal(p.to, NOW + 1);
  assert.equal(p.from_date, "2026-11-14");
  assert.equal(p.to_date, "2026-11-20");
  assert.equal(iso(p.previous!.from), "2026-11-06T23:00:00.000Z");
  assert.equal(p.previous!.to - p.previous!.from, p.to - p.from, "same length before");
});

Deno.test("periods: yesterday, today and this_month in a timezone west of UTC", () => {
  const y = resolvePeriod("yesterday", NOW, "America/New_York", 400);
  assert.equal(iso(y.from), "2026-11-19T05:00:00.000Z");
  assert.equal(iso(y.to), "2026-11-20T05:00:00.000Z");
  const t = resolvePeriod("today", NOW, "America/New_York", 400);
  assert.equal(iso(t.from), "2026-11-20T05:00:00.000Z");
  assert.equal(iso(t.previous!.from), "2026-11-19T05:00:00.000Z");
  assert.equal(iso(t.previous!.to), "2026-11-19T12:00:00.001Z", "yesterday up to this hour");
  const m = resolvePeriod("this_month", NOW, "UTC", 400);
  assert.equal(iso(m.from), "2026-11-01T00:00:00.000Z");
  assert.equal(iso(m.previous!.from), "2026-10-01T00:00:00.000Z");
});

Deno.test("periods: last_month and YYYY-MM compare with the whole calendar month before, across DST", () => {
  const p = resolvePeriod("last_month", NOW, "Europe/Berlin", 400);
  assert.equal(iso(p.from), "2026-09-30T22:00:00.000Z"); // Oct 1, summer time
  assert.equal(iso(p.to), "2026-10-31T23:00:00.000Z"); // Nov 1, winter time
  assert.equal(iso(p.previous!.from), "2026-08-31T22:00:00.000Z");
  assert.equal(iso(p.previous!.to), "2026-09-30T22:00:00.000Z");
  const feb = resolvePeriod("2026-02", NOW, "UTC", 400);
  assert.equal(feb.to_date, "2026-02-28");
  assert.equal(iso(feb.previous!.to), "2026-02-01T00:00:00.000Z", "all of January");
});

Deno.test("periods: a closed date range covers whole days, inclusive", () => {
  const p = resolvePeriod("2026-11-01..2026-11-03", NOW, "UTC", 400);
  assert.equal(iso(p.from), "2026-11-01T00:00:00.000Z");
  assert.equal(iso(p.to), "2026-11-04T00:00:00.000Z");
  assert.equal(iso(p.previous!.from), "2026-10-29T00:00:00.000Z");
});

Deno.test("periods: cut to the plan's history limit, with a 422 when wholly before it", () => {
  const p = resolvePeriod("last_90_days", NOW, "UTC", 30);
  assert.equal(p.cut_by_history, true);
  assert.equal(iso(p.from), "2026-10-22T00:00:00.000Z");
  assert.equal(p.previous, null);
  assert.throws(
    () => resolvePeriod("2025-01", NOW, "UTC", 30),
    (e: HttpError) => e.status === 422 && /history/.test(e.message),
  );
});

Deno.test("periods: names outside the list, impossible dates and future periods are a 422 naming the choices", () => {
  for (const bad of ["last_week", "2026-13", "2026-02-30..2026-03-01", "2026-11-05..2026-11-01", "2027-01"]) {
    assert.throws(() => resolvePeriod(bad, NOW, "UTC", 400), (e: HttpError) => e.status === 422, bad);
  }
  assert.throws(() => resolvePeriod("fortnight", NOW, "UTC", 400), /last_7_days/);
});

Deno.test("periods: every resolved period is non-empty, ends by now and starts at a local midnight", () => {
  const names = [
    "today",
    "yesterday",
    "last_7_days",
    "last_28_days",
    "last_30_days",
    "last_90_days",
    "this_month",
    "last_month",
  ];
  fc.assert(fc.property(
    fc.constantFrom(...names),
    fc.constantFrom("UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Auckland"),
    fc.integer({ min: Date.parse("2025-01-01"), max: Date.parse("2027-01-01") }),
    (name, tz, now) => {
      const p = resolvePeriod(name, now, tz, 400);
      assert.ok(p.from < p.to && p.to <= now + 1);
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: tz,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      })
        .format(new Date(p.from));
      assert.equal(local, "00:00");
      if (p.previous) assert.ok(p.previous.to <= p.from && p.previous.from < p.previous.to);
    },
  ));
});

Deno.test("periods: a reversed date range is a 422 saying from is after to", () => {
  assert.throws(
    () => resolvePeriod("2026-11-10..2026-11-01", NOW, "UTC", 400),
    (e: HttpError) => e.status === 422 && /from is after to/.test(e.message),
  );
});

Deno.test("periods: a range running past today compares with a window as long as the part up to now", () => {
  // Asked 2026-11-15..2026-11-30 on 2026-11-20 12:00: covers 11-15 to now, 5.5 days.
  const p = resolvePeriod("2026-11-15..2026-11-30", NOW, "UTC", 400);
  assert.equal(p.to, NOW + 1);
  assert.equal(p.to_date, "2026-11-20");
  // Like last_N_days: the 6 days before, up to the same elapsed time.
  assert.equal(iso(p.previous!.from), "2026-11-09T00:00:00.000Z");
  assert.equal(p.previous!.to - p.previous!.from, p.to - p.from, "same length as the capped period");
});

Deno.test("periods: a previous window the history limit would cut gives no comparison, with notices", () => {
  // 30-day history starts 2026-10-22; last_28_days starts 10-24 and its previous window 09-26.
  const p = resolvePeriod("last_28_days", NOW, "UTC", 30);
  assert.equal(p.cut_by_history, false);
  assert.equal(p.previous, null);
  assert.ok(p.notices.some((n) => /no comparison/.test(n) && /30-day history/.test(n)), p.notices.join());
  const cut = resolvePeriod("last_90_days", NOW, "UTC", 30);
  assert.ok(cut.notices.some((n) => /period cut/.test(n) && /2026-10-22/.test(n)), cut.notices.join());
  const whole = resolvePeriod("last_7_days", NOW, "UTC", 30);
  assert.deepEqual(whole.notices, []);
  assert.notEqual(whole.previous, null);
});
