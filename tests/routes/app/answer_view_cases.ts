/**
 * The app's reading of an answer (routes/app/answer_view.tsx): a group that reads "fewer than 5" under a saved
 * cohort is left out of the chart with a notice saying so, never drawn as 0; its table row stays. Answers with
 * nested shapes (Core Web Vitals, retention rates, crawler summaries, visits, explained changes) are read as
 * people read them: the figures, headers and cells a page shows.
 */
import assert from "node:assert/strict";
import { AnswerBlock, figuresOf, showAnswer } from "../../../routes/app/answer_view.tsx";
import { headlineFigures } from "../../../toolkit/insight_runs.ts";
import { formatValue, signedDifference } from "../../../lib/format/figures.ts";
import { metricLabel, valueWords } from "../../../lib/format/labels.ts";

const answer = (series: { bucket: string; visitors: number | string }[]) => ({
  scope: { period: { from_date: "2026-10-19", to_date: "2026-11-22" } },
  series,
  notices: ['under a saved cohort: counts of groups of 1 to 4 visitors read "fewer than 5"'],
});

Deno.test("answer view: a week that reads fewer than 5 is left out of the chart, with a notice; the table keeps it", async () => {
  const shown = await showAnswer(
    "Pricing by week",
    answer([
      { bucket: "2026-10-19", visitors: "fewer than 5" },
      { bucket: "2026-10-26", visitors: 17 },
      { bucket: "2026-11-02", visitors: 15 },
    ]),
  );
  assert.equal(shown.points, 2, "two weeks drawn");
  assert.ok(shown.chart, "a chart");
  assert.ok(
    shown.notices.includes('one group reads "fewer than 5" and is left out of the chart'),
    shown.notices.join("|"),
  );
  assert.equal(shown.table?.rows.length, 3);
  assert.equal(shown.table?.rows[0].visitors, "fewer than 5");
});

Deno.test("answer view: every group small draws no chart; none small adds no notice", async () => {
  const none = await showAnswer("t", answer([{ bucket: "2026-10-19", visitors: "fewer than 5" }]));
  assert.equal(none.chart, null);
  const all = await showAnswer(
    "t",
    answer([{ bucket: "2026-10-19", visitors: 6 }, { bucket: "2026-10-26", visitors: 7 }]),
  );
  assert.equal(all.points, 2);
  assert.equal(all.notices.length, 1);
});

// Answers as the tools give them (their output schemas), with the nested shapes the review found unread.
const scope = (timezone = "UTC") => ({
  period: { from_date: "2026-10-31", to_date: "2026-11-29" },
  timezone,
  touchpoint: { name: "Demo Shop website", kind: "website" },
});
const columnOf = (shown: Awaited<ReturnType<typeof showAnswer>>, label: string) => {
  const i = shown.table!.labels.indexOf(label);
  assert.ok(i >= 0, `a column "${label}" in ${shown.table!.labels.join(" | ")}`);
  return shown.table!.cells.map((r) => r[i]);
};
const figureOf = (shown: Awaited<ReturnType<typeof showAnswer>>, label: string) => {
  const f = shown.figures.find((x) => x.label === label);
  assert.ok(f, `a figure "${label}" in ${shown.figures.map((x) => x.label).join(" | ")}`);
  return f;
};

/** A vital as behavior_performance gives it: percentiles in ms (CLS unitless), rated at p75. */
const vital = (p75: number | null, rating: string | null, previous_p75: number | null = null) => ({
  measured: 400,
  p50: p75 === null ? null : p75 * 0.7,
  p75,
  p95: p75 === null ? null : p75 * 1.8,
  rating,
  shares: p75 === null ? null : { good: 0.6, needs_improvement: 0.3, poor: 0.1 },
  previous_p75,
});

Deno.test("answer view: page speed shows each vital's p75 with its rating, overall and per page", async () => {
  const shown = await showAnswer("Page speed", {
    scope: scope(),
    by: "page",
    units: { LCP: "ms", INP: "ms", CLS: "unitless" },
    overall: {
      page_loads: 1834,
      visitors: 612,
      vitals: {
        LCP: vital(2900, "needs_improvement", 3100),
        INP: vital(180, "good"),
        CLS: vital(0.12, "needs_improvement"),
      },
    },
    groups: [
      {
        name: "/pricing",
        page_loads: 640,
        visitors: 300,
        vitals: { LCP: vital(2300, "good"), INP: vital(560, "poor"), CLS: vital(0.05, "good") },
      },
      {
        name: "/",
        page_loads: 380,
        visitors: 250,
        vitals: { LCP: vital(1200, "good"), INP: vital(90, "good"), CLS: vital(0.004, "good") },
      },
      { name: "(other)", page_loads: 404, visitors: 120, vitals: null },
    ],
    groups_total: 3,
    notices: [],
  });
  const lcp = figureOf(shown, "LCP (p75)");
  assert.equal(lcp.text, "2.9\u00a0s");
  assert.match(lcp.compared ?? "", /^needs improvement · vs 3\.1\u00a0s$/);
  assert.equal(figureOf(shown, "INP (p75)").text, "180\u00a0ms");
  assert.equal(figureOf(shown, "INP (p75)").compared, "good");
  assert.equal(figureOf(shown, "CLS (p75)").text, "0.12");
  assert.equal(figureOf(shown, "Page loads").text, "1,834");
  assert.deepEqual(shown.table?.labels, [
    "Page",
    "Page loads",
    "LCP (p75)",
    "INP (p75)",
    "CLS (p75)",
    "Rating",
  ]);
  assert.deepEqual(shown.table?.cells[0], [
    "/pricing",
    "640",
    "2.3\u00a0s",
    "560\u00a0ms",
    "0.05",
    "poor: INP",
  ]);
  assert.deepEqual(columnOf(shown, "Rating"), ["poor: INP", "good", "—"]);
  assert.equal(shown.table?.title, "Pages");
  assert.ok(!shown.table!.cells.flat().some((c) => /_/.test(c)), "no raw identifiers");
});

Deno.test("answer view: who comes back shows the return rate per week and the average", async () => {
  const shown = await showAnswer("Who comes back", {
    scope: scope(),
    interval: "week",
    cohort_by: "first visit in the period",
    returning: "any visit",
    visitors: 44,
    cohorts: [
      { cohort: "2026-10-26", visitors: 23, returned: [23, 12, 8, 4], rates: [1, 0.5217, 0.3478, 0.1739] },
      { cohort: "2026-11-02", visitors: 12, returned: [12, 4, null], rates: [1, 0.3333, null] },
      { cohort: "2026-11-09", visitors: 9, returned: [9, 4], rates: [1, 0.4444] },
      { cohort: "2026-11-16", visitors: "fewer than 5", returned: null, rates: null },
    ],
    cohorts_total: 4,
    average_curve: [1, 0.4545, 0.3429, 0.1739],
    notices: [],
  });
  assert.deepEqual(shown.table?.labels, ["Cohort", "Visitors", "Week 1", "Week 2", "Week 3"]);
  assert.deepEqual(columnOf(shown, "Week 1"), ["52.2%", "33.3%", "44.4%", "—"]);
  // a cohort not followed that far is empty; a rate withheld beside a small count reads as a dash
  assert.deepEqual(columnOf(shown, "Week 2"), ["34.8%", "—", "", "—"]);
  assert.deepEqual(columnOf(shown, "Visitors"), ["23", "12", "9", "fewer than 5"]);
  assert.equal(figureOf(shown, "Week 1 (average)").text, "45.5%");
  assert.equal(figureOf(shown, "Week 3 (average)").text, "17.4%");
  assert.equal(figureOf(shown, "Visitors").text, "44");
});

Deno.test("answer view: crawl coverage heads with its summary, not its settings; kinds read as words", async () => {
  const shown = await showAnswer("Crawlers reading the site", {
    scope: scope(),
    lookback_days: 90,
    stale_after_days: 14,
    summary: {
      known_pages: 31,
      pages_read_by_search: 24,
      pages_read_by_ai_verified: 17,
      pages_never_read: 5,
      stale_pages: 3,
    },
    crawlers: [
      ["Googlebot", "Google", "search_engine", false],
      ["GPTBot", "OpenAI", "ai_training", true],
      ["AhrefsBot", "Ahrefs", "seo_tool", false],
    ].map(([crawler, vendor, category, ai], i) => ({
      crawler,
      vendor,
      category,
      ai,
      requests: 90 - i * 20,
      pages_read: 20 - i * 5,
      verified_pages: 20 - i * 5,
      last_read_at: `2026-11-2${i}T08:59:13.668Z`,
    })),
    crawlers_total: 3,
    pages_never_read: [{ page: "/contact", pageviews: 49, visitors: 30 }],
    pages_never_read_total: 5,
    stale_pages: [],
    stale_pages_total: 3,
    site_files: [],
    site_files_total: 0,
    notices: [],
  });
  const labels = shown.figures.map((f) => f.label);
  assert.equal(figureOf(shown, "Pages never read").text, "5");
  assert.equal(figureOf(shown, "Known pages").text, "31");
  assert.equal(figureOf(shown, "Stale pages").text, "3");
  assert.ok(labels.includes("Pages read by verified AI crawlers"), labels.join("|"));
  assert.ok(!labels.some((l) => /lookback|stale after/i.test(l)), labels.join("|"));
  assert.deepEqual(columnOf(shown, "Kind"), ["search engine", "AI training", "SEO tool"]);
  assert.ok(!shown.table!.labels.includes("Ai"), shown.table!.labels.join("|"));
  assert.deepEqual(columnOf(shown, "Last read (UTC)")[0], "20\u00a0Nov, 08:59");
});

Deno.test("answer view: robots.txt access reads its kinds, access and rules in words", async () => {
  const crawler = (name: string, category: string, group: string, access: string, robotsOnly = false) => ({
    crawler: name,
    vendor: null,
    category,
    ai: category.startsWith("ai_"),
    token_used_by: robotsOnly ? "robots.txt only" : "crawler",
    robots_txt_group: group,
    access,
    home_allowed: access !== "blocked",
    paths_checked: 6,
    paths_disallowed: access === "allowed" ? 0 : 6,
    disallowed_examples: [],
    requests: 0,
  });
  const shown = await showAnswer("Crawler access (robots.txt)", {
    scope: scope(),
    robots_txt: {
      url: "https://shop.test/robots.txt",
      outcome: "ok",
      status: 200,
      fetched_at: null,
      rules_from: null,
    },
    summary: {
      ai_crawlers_blocked: 1,
      ai_crawlers_partly_blocked: 0,
      search_crawlers_blocked: 0,
      crawlers_with_refusals: 0,
    },
    crawlers: [
      crawler("Google-Extended", "ai_training", "its own (a User-agent line names it)", "blocked", true),
      crawler("Googlebot", "search_engine", "* (for all crawlers)", "allowed"),
      crawler("ClaudeBot", "ai_assistant", "none", "allowed"),
    ],
    crawlers_total: 3,
    refusals: [],
    refusals_total: 0,
    notices: [],
  });
  assert.equal(figureOf(shown, "AI crawlers blocked").text, "1");
  const labels = shown.table!.labels;
  assert.ok(!labels.some((l) => /^(Ai|Token used by|Robots txt group)$/.test(l)), labels.join("|"));
  assert.deepEqual(columnOf(shown, "Kind"), ["AI training", "search engine", "AI assistant"]);
  assert.deepEqual(columnOf(shown, "robots.txt rules"), [
    "its own (a User-agent line names it)",
    "* (for all crawlers)",
    "none",
  ]);
  assert.deepEqual(columnOf(shown, "Access"), ["blocked", "allowed", "allowed"]);
});

/** A visit as behavior_sessions gives it. */
const visit = (started_at: string, source: string) => ({
  started_at,
  duration_s: 163,
  entry_page: "/features/analytics",
  exit_page: "/pricing",
  pages_seen: 4,
  pages: ["/features/analytics", "/pricing"],
  events: 9,
  source,
  channel: "Referral",
  country: "DE",
  device: "desktop",
});

Deno.test("answer view: example visits start at a local time, in a few columns, with no chart of visits", async () => {
  const answer = (timezone: string) => ({
    scope: scope(timezone),
    sessions: [
      visit("2026-11-29T18:31:00.000Z", "news.ycombinator.com"),
      visit("2026-11-29T17:02:00.000Z", "Google"),
    ],
    sessions_total: 2,
    notices: [],
  });
  const shown = await showAnswer("Example visits", answer("UTC"));
  assert.deepEqual(shown.table?.labels, ["Started (UTC)", "Duration", "Entry page", "Pages", "Source"]);
  assert.deepEqual(shown.table?.cells[0], [
    "29\u00a0Nov, 18:31",
    "2\u00a0min\u00a043\u00a0s",
    "/features/analytics",
    "4",
    "news.ycombinator.com",
  ]);
  assert.ok(!shown.table!.cells.flat().some((c) => /\dT\d|Z$/.test(c)), "no raw timestamps");
  // each row is a visit, not a group: bars of visits by source would repeat their names
  assert.equal(shown.chart, null);
  const berlin = await showAnswer("Example visits", answer("Europe/Berlin"));
  assert.equal(berlin.table?.labels[0], "Started (Europe/Berlin)");
  assert.equal(berlin.table?.cells[0][0], "29\u00a0Nov, 19:31");
  // long paths and host names may break at their slashes and dots, so the table fits a narrow card
  const html = String(await AnswerBlock({ shown }));
  assert.match(html, /news\.<wbr\/?>ycombinator\.<wbr\/?>com/);
  assert.match(html, /\/features<wbr\/?>\/analytics/);
});

/** A segment of behavior_explain_change: value and previous in the metric's unit, `change` relative. */
const driver = (name: string, dimension: string, previous: number, value: number, contribution: number) => ({
  name,
  value,
  previous,
  difference: value - previous,
  change: previous === 0 ? null : Math.round(((value - previous) / previous) * 10_000) / 10_000,
  units: { value: 100, previous: 100 },
  contribution,
  contribution_share: 0.5,
  mix: null,
  rate: null,
  effect: "volume",
  dimension,
  finding: `${dimension} ${name}: …`,
});

Deno.test("answer view: what changed shows a driver's change as a signed percentage, in the metric's unit", async () => {
  const counts = await showAnswer("What changed and why", {
    scope: scope(),
    metric: "visitors",
    conversion_event: null,
    attribution: "each visitor counted once",
    total: { value: 547, previous: 619, difference: -72, change: -0.1163 },
    summary: "visitors fell from 619 to 547",
    drivers: [driver("Google", "source", 250, 200, -50), driver("/new", "page", 0, 12, 12)],
    drivers_total: 2,
    dimensions: [],
    dimensions_total: 0,
    notices: [],
  });
  assert.deepEqual(counts.table?.labels, ["Segment", "Before", "Visitors", "Change", "Part of the change"]);
  assert.deepEqual(counts.table?.cells[0], ["Google (source)", "250", "200", "−20%", "−50"]);
  assert.deepEqual(counts.table?.cells[1], ["/new (page)", "0", "12", "new", "+12"]);
  assert.equal(figureOf(counts, "Visitors").compared, "vs 619 (−11.6%)");
  // the chart's axis names the metric, with the period before as ticks
  assert.match(counts.chart ?? "", /visitors →/);
  assert.doesNotMatch(counts.chart ?? "", /value →/);

  const rates = await showAnswer("What changed and why", {
    scope: scope(),
    metric: "bounce_rate",
    conversion_event: null,
    attribution: "each session counted once",
    total: { value: 0.22807, previous: 0.235294, difference: -0.007224, change: -0.0307 },
    summary: "bounce rate fell",
    drivers: [
      driver("desktop", "device", 0.428571, 0.295455, -0.056458),
      driver("Chrome", "browser", 0, 0.365854, 0.075511),
    ],
    drivers_total: 2,
    dimensions: [],
    dimensions_total: 0,
    notices: [],
  });
  assert.deepEqual(rates.table?.cells[0], ["desktop (device)", "42.9%", "29.5%", "−31.1%", "−5.6 points"]);
  // a rate from 0% has no relative change, and is not a new segment
  assert.deepEqual(rates.table?.cells[1], ["Chrome (browser)", "0%", "36.6%", "—", "+7.6 points"]);
  assert.match(rates.chart ?? "", /bounce rate →/);
});

Deno.test("figures for people: milliseconds from a second on, relative changes, differences and acronyms", () => {
  // a figure's spaces are no-break ones, milliseconds' as a duration's: never split over two lines
  assert.equal(formatValue("lcp_ms", 2900), "2.9\u00a0s");
  assert.equal(formatValue("lcp_ms", 75_000), "1\u00a0min\u00a015\u00a0s");
  assert.equal(formatValue("inp_ms", 180), "180\u00a0ms");
  assert.equal(formatValue("change", -0.2), "−20%");
  assert.equal(signedDifference("visitors", -1204), "−1,204");
  assert.equal(signedDifference("bounce_rate", 0.076), "+7.6 points");
  assert.equal(signedDifference("visitors", 0), "±0");
  assert.equal(metricLabel("ai_crawlers_blocked"), "AI crawlers blocked");
  assert.equal(valueWords("needs_improvement"), "needs improvement");
  assert.equal(valueWords("sign_up"), "sign_up", "an event's name stays as sent");
});

Deno.test("answer view: a notice's times read in the answer's time zone, not as stored", async () => {
  const shown = await showAnswer("t", {
    scope: { timezone: "Europe/Berlin", period: null },
    visitors: 12,
    notices: ["data fresh to 2026-11-29T19:34:32.181Z; later events arrive within minutes"],
  });
  assert.equal(shown.notices.length, 1);
  // (the time's own spaces may be non-breaking, so a phone never splits "29 Nov")
  assert.match(shown.notices[0], /^data fresh to 29\sNov,\s20:34 \(Europe\/Berlin\); later events arrive/);
});

Deno.test("answer view: a list's bars are drawn by the figure it is ordered by", async () => {
  const pages = [
    { page: "/a", pageviews: 50, visitors: 39 },
    { page: "/b", pageviews: 45, visitors: 40 },
    { page: "/c", pageviews: 20, visitors: 12 },
  ];
  const byViews = await showAnswer("Top pages", { scope: { period: null }, pages });
  assert.match(byViews.chart!, /pageviews →/);
  assert.doesNotMatch(byViews.chart!, /visitors →/);
  // ordered by visitors, it is drawn by visitors
  const byVisitors = await showAnswer("Top pages", {
    scope: { period: null },
    pages: [pages[1], pages[0], pages[2]],
  });
  assert.match(byVisitors.chart!, /visitors →/);
});

Deno.test("answer view: one app's review themes are the table, its review counts the headline", async () => {
  const theme = (label: string, reviews: number, share: number, rising: boolean) => ({
    id: label,
    label,
    kind: "taxonomy",
    reviews,
    share,
    sentiment: { positive: 0, neutral: 0, negative: 1 },
    dominant_intent: "bug_report",
    previous_reviews: 1,
    previous_share: 0.05,
    share_change: share - 0.05,
    rising,
    examples: [],
  });
  const shown = await showAnswer("Review themes", {
    scope: { period: null },
    apps: [{
      app: { id: "app_1", name: "Acme", store: "app_store", store_id: "1", own: true, ownership: "" },
      reviews: 150,
      analysed: 141,
      themes: [
        theme("crashes and bugs", 18, 0.128, true),
        theme("pricing and subscriptions", 22, 0.156, false),
      ],
      themes_total: 2,
      rising: ["crashes and bugs"],
    }],
    apps_total: 1,
  });
  assert.deepEqual(shown.figures.map((f) => f.name), ["reviews", "analysed"]);
  assert.equal(shown.table?.title, "Themes");
  assert.deepEqual(shown.table?.cells[0].slice(0, 3), ["crashes and bugs", "18", "12.8%"]);
  assert.ok(shown.table?.cells[0].includes("bug report"), JSON.stringify(shown.table?.cells[0]));
});

Deno.test("answer view: the headline figures are the dashboards' (behavior_saved), the request's settings never among them", () => {
  const answer = {
    scope: scope(),
    summary: { known_pages: 40, pages_never_read: 3 },
    lookback_days: 30,
    stale_after_days: 14,
    window_days: 7,
    limit: 10,
    min_visitors: 5,
    max_depth: 4,
    splits_withheld: 0,
    visitors: { value: 547, previous: 619, change: -0.1163 },
    pageviews: 1834,
    pages: [{ page: "/", visitors: 12 }],
    pages_total: 1,
    notices: [],
  };
  const names = ["known_pages", "pages_never_read", "visitors", "pageviews"];
  assert.deepEqual(figuresOf(answer).map((f) => f.name), names);
  assert.deepEqual(headlineFigures(answer).map((f) => f.name), names);
});
