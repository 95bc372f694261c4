/**
 * Reports in people's words: titles name the dates, not the week code; AI answer engines and sources by their
 * brand, not the lower-case name they are counted under; a review theme with none the period before is "new";
 * the generated time as a date.
 */
import assert from "node:assert/strict";
import { headlineText, momentText, periodOfKey, periodTitle } from "../../../lib/reports/periods.ts";
import { sourceFindings, sourceName } from "../../../lib/reports/findings/behavior.ts";
import { themeFindings } from "../../../lib/reports/findings/reviews.ts";
import type { FindingContext } from "../../../lib/reports/findings/common.ts";
import type { Touchpoint } from "../../../lib/store/records.ts";
import { reportText } from "../../../lib/reports/mail.ts";
import type { Report } from "../../../lib/reports/types.ts";

const week = periodOfKey("weekly", "2026-W47")!;
const c: FindingContext = {
  touchpoint: { id: "tp_1", name: "Acme site", kind: "website" } as Touchpoint,
  period: week,
  ask: () => Promise.reject(new Error("not asked")),
};

Deno.test("report words: a week's and a month's title read as dates, the key only in ids", () => {
  assert.equal(periodTitle("weekly", week.period), "Week of 16–22 Nov 2026");
  assert.equal(periodTitle("monthly", periodOfKey("monthly", "2026-10")!.period), "October 2026");
  const text = reportText(
    {
      org: "org_abc",
      id: "weekly-2026-W47-tp_1",
      kind: "weekly",
      period: week.period,
      period_key: week.key,
      headline: "h",
      summary: "s",
      findings: [],
      touchpoint_name: "Acme site",
    } as unknown as Report,
    null,
  );
  assert.match(text, /Reports, Acme site, Week of 16–22 Nov 2026\./);
  assert.doesNotMatch(text, /W47/);
});

Deno.test("report words: the generated time as a date ('29 Nov 2026, 20:11 UTC')", () => {
  assert.equal(momentText("2026-11-29T20:11:42.123Z"), "29 Nov 2026, 20:11 UTC");
  assert.equal(momentText("2026-03-01T07:05:00Z"), "1 Mar 2026, 07:05 UTC");
});

Deno.test("report words: AI answer engines and sources by their brand; the numbers keep the counted name", () => {
  const found = sourceFindings(c, {
    ai_answer_engines: [
      { name: "gemini", visitors: 40, previous_visitors: 10 },
      { name: "chatgpt", visitors: 60, previous_visitors: 20 },
      { name: "newengine", visitors: 30, previous_visitors: 5 },
    ],
    sources: [
      { name: "gemini", visitors: 40, previous_visitors: 10 },
      { name: "linkedin", visitors: 50, previous_visitors: 10 },
      { name: "you.com", visitors: 50, previous_visitors: 10 },
    ],
  });
  const claims = found.map((f) => f.claim);
  assert.ok(claims.some((s) => s.startsWith("AI answer engine Gemini sent 40 visitors")), claims.join(" | "));
  assert.ok(claims.some((s) => s.startsWith("AI answer engine ChatGPT sent")), claims.join(" | "));
  assert.ok(claims.some((s) => s.startsWith("AI answer engine Newengine sent")), claims.join(" | "));
  assert.ok(claims.some((s) => s.startsWith("LinkedIn sent")), claims.join(" | "));
  assert.ok(claims.some((s) => s.startsWith("you.com sent")), claims.join(" | "));
  assert.ok(!claims.some((s) => /engine gemini|engine chatgpt/.test(s)), claims.join(" | "));
  assert.ok(found.some((f) => f.numbers.source === "gemini"), "the numbers keep the counted name");
  assert.equal(sourceName("perplexity"), "Perplexity");
  assert.equal(sourceName("copilot"), "Copilot");
  assert.equal(sourceName("claude"), "Claude");
});

Deno.test("report words: a rising review theme with none the period before is 'new', not 'was 0%'", () => {
  const theme = (id: string, previous_share: number | null) => ({
    id,
    label: id,
    rising: true,
    reviews: 12,
    share: 0.3,
    previous_share,
    share_change: previous_share === null ? null : 0.3 - previous_share,
    dominant_intent: "other",
  });
  const found = themeFindings(c, {
    apps: [{
      app: { name: "Acme" },
      themes: [theme("crashes", 0), theme("login", null), theme("sync", 0.1)],
    }],
  }, "app_1");
  const claim = (id: string) => found.find((f) => f.numbers.theme === id)!.claim;
  assert.match(claim("crashes"), /\(new\)\.$/, claim("crashes"));
  assert.match(claim("login"), /\(new\)\.$/, claim("login"));
  assert.match(claim("sync"), /\(was 10%\)\.$/, claim("sync"));
  assert.doesNotMatch(found.map((f) => f.claim).join(" "), /was 0%/);
});

Deno.test("report words: a report stored with the week code in its headline reads with the dates", () => {
  const old = {
    kind: "weekly" as const,
    period: week.period,
    headline: "Week 2026-W47: 210 visitors; 3 findings.",
  };
  assert.equal(headlineText(old), "Week of 16–22 Nov 2026: 210 visitors; 3 findings.");
  const month = {
    kind: "monthly" as const,
    period: "2026-10",
    headline: "Month 2026-10: no visitors; a quiet period.",
  };
  assert.equal(headlineText(month), "October 2026: no visitors; a quiet period.");
  const now = { ...old, headline: "Week of 16–22 Nov 2026: 210 visitors; 3 findings." };
  assert.equal(headlineText(now), now.headline);
});
