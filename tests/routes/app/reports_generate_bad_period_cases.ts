/**
 * Reports → Generate now with a week or month key out of the calendar's range: weekly:0000-W01 and
 * weekly:0001-W01 were a 500 (periodOfKey read the null its day parser gives for a year before 0100), and a
 * month of such a year was read as a month of 1900 (JavaScript's dates take years 0 to 99 as 1900 to 1999).
 * Each is now the form's error naming the period, as weekly:2026-W99 already was. Through the app's form.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { periodOfKey } from "../../../lib/reports/periods.ts";

const ERROR = (key: string) => `period: &quot;${key}&quot; is not a week (2026-W47) or a month (2026-11)`;

Deno.test("generate now: a week or month key before year 100 is the form's error naming it, never a 500", async () => {
  const w = await peopleWorld();
  try {
    const owner = await w.join("owner@acme.test", "owner");
    const reports = orgUrl(w.org, "reports");
    await owner.open(reports);
    for (const period of ["weekly:2026-W99", "weekly:0000-W01", "weekly:0001-W01", "weekly:0099-W52"]) {
      const page = await owner.submit(`${reports}/generate`, { period, touchpoint: w.tenant.touchpoint });
      assert.equal(page.status, 200, `${period}: ${page.html.slice(0, 300)}`);
      const key = period.split(":")[1];
      assert.ok(page.html.includes(ERROR(key)), `${period}: the error names it`);
    }
    for (const period of ["monthly:0000-01", "monthly:0001-12", "monthly:0099-06"]) {
      const page = await owner.submit(`${reports}/generate`, { period, touchpoint: w.tenant.touchpoint });
      assert.equal(page.status, 200, period);
      assert.ok(page.html.includes(ERROR(period.split(":")[1])), `${period}: the error names it`);
    }
  } finally {
    w.close();
  }
});

Deno.test("periodOfKey: a key is its own period, or none when a day of it or of the period before is out of range", () => {
  // 0100-W01 and 0100-01 are none: the period before them is in 0099
  for (const key of ["0000-W01", "0001-W01", "0099-W52", "0100-W01", "2026-W00", "2026-W54", "2027-W53"]) {
    assert.equal(periodOfKey("weekly", key), null, key);
  }
  for (const key of ["0000-01", "0001-12", "0099-12", "0100-01", "2026-00", "2026-13"]) {
    assert.equal(periodOfKey("monthly", key), null, key);
  }
  // keys of the years 100 to 999 keep their four digits ("100-02" was no key of "0100-02")
  assert.deepEqual(periodOfKey("weekly", "0100-W02"), {
    kind: "weekly",
    key: "0100-W02",
    period: "0100-01-11..0100-01-17",
    previous: "0100-01-04..0100-01-10",
    from: "0100-01-11",
    to: "0100-01-17",
  });
  assert.equal(periodOfKey("monthly", "0100-02")?.previous, "0100-01");
  assert.equal(periodOfKey("weekly", "2026-W53")?.from, "2026-12-28"); // 2026 has 53 weeks
  assert.equal(periodOfKey("weekly", "2027-W01")?.previous, "2026-12-28..2027-01-03");
  assert.equal(periodOfKey("monthly", "2026-11")?.previous, "2026-10");
});
