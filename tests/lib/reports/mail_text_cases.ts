/** The report mail's link: absolute on a known origin, otherwise where to find the report, never a bare path. */
import assert from "node:assert/strict";
import { reportText } from "../../../lib/reports/mail.ts";
import type { Report } from "../../../lib/reports/types.ts";

const report = {
  org: "org_abc",
  id: "weekly-2026-W46-tp_1",
  headline: "Visitors rose 12%",
  summary: "A quiet week otherwise.",
  findings: [{ claim: "/pricing doubled" }],
  touchpoint_name: "Acme site",
  kind: "weekly",
  period: "2026-11-09..2026-11-15",
  period_key: "2026-W46",
} as unknown as Report;

Deno.test("report mail: an absolute link on the origin it is given", () => {
  const text = reportText(report, "https://behavior.example.com");
  assert.match(
    text,
    /Open the report: https:\/\/behavior\.example\.com\/app\/o\/org_abc\/reports\/weekly-2026-W46-tp_1/,
  );
  assert.match(text, /- \/pricing doubled/);
});

Deno.test("report mail: with no origin (a scheduled report, no PUBLIC_URL) it says where to find it", () => {
  const text = reportText(report, null);
  assert.match(text, /Open the report in the app: Reports, Acme site, Week of 9–15 Nov 2026\./);
  assert.ok(!text.includes("/app/o/"), "no path a mail client cannot open");
});
