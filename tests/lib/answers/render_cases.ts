import assert from "node:assert/strict";
import { renderAnswer } from "../../../lib/answers/render.ts";

Deno.test("render: the text of an answer is generated from its JSON: scope, comparisons, lists with totals, notes", () => {
  const text = renderAnswer("behavior_overview", {
    scope: {
      period: { name: "last_7_days", from_date: "2026-11-14", to_date: "2026-11-20" },
      timezone: "Europe/Berlin",
      environment: "production",
      touchpoint: { kind: "website", name: "Acme" },
      traffic: "visitors",
      filter: null,
    },
    visitors: { value: 120, previous: 100, change: 0.2 },
    top_pages: [{ name: "/pricing", visitors: 40 }],
    top_pages_total: 9,
    notices: ["data fresh to 2026-11-20T11:58:00.000Z (2 minutes ago)"],
  });
  assert.equal(
    text,
    [
      "behavior_overview",
      "Scope: 2026-11-14 to 2026-11-20 (last_7_days); Europe/Berlin; production; website Acme; traffic: visitors",
      "visitors: 120 (previous 100, +20%)",
      "top pages (1 of 9):",
      "- /pricing: visitors 40",
      "Notes: data fresh to 2026-11-20T11:58:00.000Z (2 minutes ago)",
    ].join("\n"),
  );
});

Deno.test("render: compared items keep their names; lists inside items are lists; fractions read as percent", () => {
  const text = renderAnswer("behavior_explain_change", {
    total: { value: 102, previous: 114, difference: -12, change: -0.1053 },
    drivers: [{
      name: "Chrome",
      dimension: "browser",
      value: 50,
      previous: 65,
      difference: -15,
      change: -0.2308,
      contribution_share: 1.25,
    }],
    drivers_total: 28,
    dimensions: [{
      dimension: "channel",
      segments: [{ name: "Email", value: 10, previous: 6, change: 0.6667 }],
    }],
    bounce_rate: { value: 0.578, previous: 0.493, change: 0.172 },
    crawl_to_referral: {
      vendors: [{ vendor: "OpenAI", answer_engines: [], ai_reads: 74 }],
      vendors_total: 1,
    },
  });
  assert.equal(
    text,
    [
      "behavior_explain_change",
      "total: 102 (previous 114, -10.5%)",
      "drivers (1 of 28):",
      "- browser Chrome: 50 (previous 65, -23.1%), contribution share 125%",
      "dimensions (1):",
      "- channel",
      "  segments (1):",
      "  - Email: 10 (previous 6, +66.7%)",
      "bounce rate: 57.8% (previous 49.3%, +17.2%)",
      "crawl to referral:",
      "  vendors (1 of 1):",
      "  - vendor OpenAI: answer engines none, ai reads 74",
    ].join("\n"),
  );
});

Deno.test("render: an item's flag reads as a word, not as true or false", () => {
  const text = renderAnswer("account_overview", {
    organizations: [{ name: "Demo Org", described: true, own: false }],
  });
  assert.match(text, /- Demo Org: described, not own$/m);
  assert.doesNotMatch(text, /\btrue\b|\bfalse\b/);
});

Deno.test('render: an empty name reads as "", never as nothing', () => {
  const text = renderAnswer("behavior_event_properties", { properties: [{ property: "", events: 5 }] });
  assert.match(text, /- property "", events 5$/m);
});

Deno.test("render: enum values of known fields read as words; names stay exactly as stored", () => {
  const text = renderAnswer("behavior_feedback_themes", {
    rating: "needs_improvement",
    kind: "ai_agent",
    dominant_intent: "price_complaint",
    rising: ["crashes_bugs", "login_account"],
    events: [{ name: "sign_up_done", kind: "custom_event", visitors: 3 }],
  });
  assert.match(text, /^rating: needs improvement$/m);
  assert.match(text, /^kind: AI agent$/m);
  assert.match(text, /^dominant intent: price complaint$/m);
  assert.match(text, /^rising: crashes bugs; login account$/m);
  assert.match(text, /^- sign_up_done: kind custom event, visitors 3$/m);
});

Deno.test("render: the values of a shares or sentiment object read as percentages", () => {
  const text = renderAnswer("behavior_web_vitals", {
    shares: { good: 0.662, needs_improvement: 0.2, poor: 0.139 },
    themes: [{ name: "Pricing", sentiment: { positive: 0.418, negative: 0.582 }, negative_share: 0.582 }],
  });
  assert.match(text, /^shares: good 66\.2%, needs improvement 20%, poor 13\.9%$/m);
  assert.match(text, /^- Pricing: sentiment positive 41\.8%, negative 58\.2%, negative share 58\.2%$/m);
});

Deno.test("render: a field ending in _s or _ms is a duration, its unit said by the value", () => {
  const text = renderAnswer("behavior_overview", {
    session_duration_s: 78.7,
    time_from_previous_median_s: 56.3,
    first_input_s: 5.26,
    load_ms: 420,
    compared_duration_s: { value: 3725, previous: 60, change: 61.08 },
  });
  assert.match(text, /^session duration: 1 min 19 s$/m);
  // one rule with the app's pages: tenths below 10 s, whole seconds from there
  assert.match(text, /^time from previous median: 56 s$/m);
  assert.match(text, /^first input: 5\.3 s$/m);
  assert.match(text, /^load: 420 ms$/m);
  assert.match(text, /^compared duration: 1 h 2 min \(previous 1 min, \+6108%\)$/m);
  assert.doesNotMatch(text, / s:/);
});

Deno.test("render: ISO times in time fields read in the scope's time zone; other strings stay as stored", () => {
  const text = renderAnswer("behavior_sessions", {
    scope: {
      period: null,
      timezone: "Europe/Berlin",
      environment: "production",
      touchpoint: null,
      traffic: "visitors",
    },
    sessions: [{
      started_at: "2026-11-29T19:34:00.000Z",
      date: "2026-11-28T08:16:35.345Z",
      value: "2026-11-28T08:16:35Z",
    }],
  });
  assert.match(
    text,
    /^- started at 29 Nov 2026, 20:34, date 28 Nov 2026, 09:16, value 2026-11-28T08:16:35Z$/m,
  );
  const utc = renderAnswer("x", { updated_at: "2026-11-29T19:34:00.000Z" });
  assert.match(utc, /^updated at: 29 Nov 2026, 19:34 UTC$/m);
});

Deno.test("render: top-level fields the answer does not use and the first page's offset are left out", () => {
  const text = renderAnswer("behavior_saved", {
    action: "list",
    search: null,
    items: [{ name: "Weekly", visitors: 2 }],
    offset: 0,
    insight: null,
    dashboard: null,
    cohort: null,
  });
  assert.equal(text, ["behavior_saved", "action: list", "items (1):", "- Weekly: visitors 2"].join("\n"));
  assert.match(renderAnswer("behavior_saved", { offset: 25 }), /^offset: 25$/m);
});

Deno.test("render: an item's empty description is left out; an empty name or value is still said", () => {
  const text = renderAnswer("behavior_saved", {
    items: [{ kind: "insight", name: "Crawl", description: "", value: "" }],
  });
  assert.match(text, /^- Crawl: kind insight, value ""$/m);
});
