import assert from "node:assert/strict";
import { callWords } from "../../../lib/format/call_words.ts";

const names = { touchpoint: (id: string) => (id === "tp_1" ? "Acme site" : undefined) };

Deno.test("call words: a finding's call reads as the app says it, in one rule for reports, insights and views", () => {
  assert.equal(
    callWords({
      tool: "behavior_pages",
      input: { touchpoint: "tp_1", period: "2026-11-16..2026-11-22", search: "/pricing", limit: 10 },
    }, names),
    "Top pages · Acme site · 16–22 Nov 2026 · pages matching “/pricing”",
  );
  // a named period by its label, the tool's default when the call names none
  assert.equal(
    callWords({ tool: "behavior_overview", input: { period: "last_7_days" } }),
    "Headline numbers · Last 7 days",
  );
  assert.equal(
    callWords({ tool: "behavior_overview", input: {} }, { defaultPeriod: "last_28_days" }),
    "Headline numbers · Last 28 days",
  );
  // what only orders or pages the answer is no part of the question
  assert.equal(
    callWords({
      tool: "feedback_themes",
      input: { app: "app_9", period: "2026-11", rising_first: true, sort_by: "x" },
    }, {
      theme: "crashes and bugs",
    }),
    "App reviews: themes · the app · November 2026",
  );
  // an event's name stays as sent; a choice reads in words; steps as a path
  assert.equal(
    callWords({
      tool: "behavior_funnel",
      input: {
        period: "2026-11-01..2026-11-07",
        steps: [{ page: "/caf%C3%A9" }, { event: "sign_up", property: "plan", value: "pro" }],
        conversion_window: "1d",
        split_by: "day_of_week",
      },
    }),
    "Funnel · 1–7 Nov 2026 · /café → sign_up with plan = pro · converting within 1 day · by day of week",
  );
  assert.equal(
    callWords({ tool: "behavior_event_properties", input: { event: "sign_up", cohort: "Buyers" } }),
    "Event properties · event sign_up · only the cohort “Buyers”",
  );
  assert.equal(
    callWords({ tool: "behavior_trends", input: { event: "sign_up", interval: "week" } }),
    "Visitors over time · visitors of sign_up per week",
  );
  // a sessions trend is named for sessions, and no event reads as no "of pageviews"
  assert.equal(
    callWords({ tool: "behavior_trends", input: { metric: "sessions", interval: "week" } }),
    "Sessions over time · per week",
  );
  assert.equal(
    callWords({ tool: "behavior_trends", input: { metric: "events" } }),
    "Events over time · pageviews per day",
  );
  // a tool with no question of its own: its name in words, never its id
  assert.equal(callWords({ tool: "report_get", input: {} }), "Get");
});
