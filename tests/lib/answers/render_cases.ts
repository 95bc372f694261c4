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
      "Notes: data fresh to 20 Nov 2026, 12:58 (Europe/Berlin) (2 minutes ago)",
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
      "bounce rate: 57.8% (previous 49.3%, +8.5 pts, +17.2% relative)",
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
  assert.match(text, /^compared duration: 1 h 2 min \(previous 1 min, \+6,108%\)$/m);
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

Deno.test("render: rates read as percentages, differences of rates as points, relative changes say so", () => {
  // behavior_explain_change of a rate: value and previous are rates 0-1; difference, contribution, mix and
  // rate are differences of rates (its schema); change is relative
  const text = renderAnswer("behavior_explain_change", {
    metric: "conversion_rate",
    total: { value: 0.029, previous: 0.035, difference: -0.006, change: -0.186 },
    drivers: [{
      name: "Chrome Mobile",
      dimension: "browser",
      value: 0.024,
      previous: 0.052,
      difference: -0.028,
      change: -0.533,
      units: { value: 1207, previous: 1232 },
      contribution: -0.004,
      contribution_share: 0.716,
      mix: 0,
      rate: -0.004,
      effect: "rate",
    }],
  });
  assert.match(text, /^total: 2\.9% \(previous 3\.5%, -0\.6 pts, -18\.6% relative\)$/m);
  assert.match(
    text,
    /^- browser Chrome Mobile: 2\.4% \(previous 5\.2%, -2\.8 pts, -53\.3% relative\), contribution -0\.4 pts, contribution share 71\.6%, mix ±0 pts, rate -0\.4 pts, effect rate$/m,
  );
  // a count metric keeps its counts
  const counts = renderAnswer("behavior_explain_change", {
    metric: "visitors",
    total: { value: 1281, previous: 1325, difference: -44, change: -0.033 },
  });
  assert.match(counts, /^total: 1,281 \(previous 1,325, -3\.3%\)$/m);
  // behavior_retention's rates and average curve are return rates; feedback_themes' share_change is points
  const retention = renderAnswer("behavior_retention", {
    cohorts: [{ cohort: "2026-08-31", visitors: 288, returned: [288, 63, 19], rates: [1, 0.219, 0.066] }],
    average_curve: [1, 0.168, null],
  });
  assert.match(
    retention,
    /^- cohort 2026-08-31, visitors 288, returned 288; 63; 19, rates 100%; 21\.9%; 6\.6%$/m,
  );
  assert.match(retention, /^average curve: 100%; 16\.8%; n\/a$/m);
  const themes = renderAnswer("feedback_themes", {
    themes: [{ name: "Crashes", share: 0.128, previous_share: 0.095, share_change: 0.033 }],
  });
  assert.match(themes, /^- Crashes: share 12\.8%, previous share 9\.5%, share change \+3\.3 pts$/m);
});

Deno.test("render: counts have thousands separators; ids, years, versions and codes do not", () => {
  const text = renderAnswer("account_overview", {
    plan: { allowances: { api_requests: { allowance: 50000, used: 1182, left: 48818 } } },
    visitors: { value: 2381, previous: 1464, change: 0.626 },
    items: [{
      name: "x",
      id: 123456,
      year: 2026,
      version: 10203,
      status: 1404,
      store_id: 6450000001,
      views: 12345.678,
    }],
    updated_at: 1764450000000,
  });
  assert.match(text, /allowance 50,000, used 1,182, left 48,818/);
  assert.match(text, /^visitors: 2,381 \(previous 1,464, \+62\.6%\)$/m);
  assert.match(
    text,
    /^- x: id 123456, year 2026, version 10203, status 1404, store id 6450000001, views 12,345\.678$/m,
  );
  assert.match(text, /^updated at: 1764450000000$/m);
});

Deno.test("render: wording: a percent field says %, flags read as words, empty objects, pageviews of a visit", () => {
  const text = renderAnswer("behavior_crawl_coverage", {
    pages: [{ page: "/", scroll_depth_percent: 45.3, exit_rate: 0.546 }],
    vendors: [
      { vendor: "OpenAI", sends_visitors: true, own: true },
      { vendor: "Meta", sends_visitors: false, ai: false, own: false },
    ],
    cohort: {
      name: "Buyers",
      defines: "did purchase",
      definition: { all: [{ event: "purchase" }] },
      filters: {},
      visitors: 12,
    },
    sessions: [{ source: "google", pages_seen: 5, pages: ["/", "/pricing", "/docs", "/pricing"] }],
  });
  assert.match(text, /^- page \/: scroll depth 45\.3%, exit rate 54\.6%$/m);
  assert.match(text, /^- vendor OpenAI: sends visitors, own$/m);
  assert.match(text, /^- vendor Meta: sends no visitors, not AI, not own$/m);
  assert.match(text, /^cohort: Buyers: defines did purchase, filters \(none\), visitors 12$/m);
  assert.match(text, /^- source google: pageviews 5, pages \/; \/pricing; \/docs; \/pricing$/m);
  assert.doesNotMatch(text, / ,|not sends|percent|pages seen/);
});

Deno.test("render: a notice's times read in the answer's time zone, or in UTC, said", () => {
  const scope = {
    period: null,
    timezone: "Europe/Berlin",
    environment: "production",
    touchpoint: null,
    traffic: "all",
  };
  const text = renderAnswer("account_overview", {
    scope,
    notices: ["data fresh to 2026-11-29T21:56:47.064Z (59 minutes ago)"],
  });
  assert.match(text, /^Notes: data fresh to 29 Nov 2026, 22:56 \(Europe\/Berlin\) \(59 minutes ago\)$/m);
  const utc = renderAnswer("x", { notices: ["data fresh to 2026-11-29T21:56:47.064Z"] });
  assert.match(utc, /^Notes: data fresh to 29 Nov 2026, 21:56 \(UTC\)$/m);
});

Deno.test("render: a report finding's numbers: previous in the unit of its figure, change as a relative percentage", () => {
  const text = renderAnswer("report_get", {
    findings: [
      { kind: "page_rose", numbers: { page: "/features", pageviews: 1455, previous: 1028, change: 0.415 } },
      {
        kind: "funnel_fell",
        numbers: { insight: "Signup", conversion: 0.029, previous: 0.035, change: -0.171 },
      },
      { kind: "headline", numbers: { metric: "bounce_rate", value: 0.562, previous: 0.57, change: -0.014 } },
    ],
  });
  assert.match(
    text,
    /^- kind page rose, numbers page \/features: pageviews 1,455, previous 1,028, change \+41\.5%$/m,
  );
  assert.match(
    text,
    /^- kind funnel fell, numbers insight Signup, conversion 2\.9%, previous 3\.5%, change -17\.1% relative$/m,
  );
  assert.match(
    text,
    /^- kind headline, numbers 56\.2% \(previous 57%, -0\.8 pts, -1\.4% relative\), metric bounce_rate$/m,
  );
});

Deno.test("render: a dashboard's figure named after a rate or a duration reads in its unit", () => {
  const text = renderAnswer("behavior_saved", {
    dashboard: {
      name: "Weekly",
      insights: [{
        name: "Overview",
        figures: [
          { name: "visitors", value: 1238, previous: 1279, change: -0.032 },
          { name: "bounce_rate", value: 0.565, previous: 0.535, change: 0.057 },
          { name: "/pricing: exit_rate", value: 0.552 },
          { name: "session_duration_s", value: 79 },
        ],
      }],
    },
  });
  assert.match(text, /^ {4}- visitors: 1,238 \(previous 1,279, -3\.2%\)$/m);
  assert.match(text, /^ {4}- bounce_rate: 56\.5% \(previous 53\.5%, \+3 pts, \+5\.7% relative\)$/m);
  assert.match(text, /^ {4}- `\/pricing: exit_rate`: value 55\.2%$/m);
  assert.match(text, /^ {4}- session_duration_s: value 1 min 19 s$/m);
});
