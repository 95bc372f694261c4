/**
 * behavior_saved through HTTP and MCP: the list (kinds, what each defines, the author's role, paging), a saved
 * insight run as its tool answers, a dashboard's headline figures, a cohort's size, and saved items that no
 * longer validate answering with what is wrong.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { keys } from "../../lib/store/keys.ts";
import { addMember } from "../../lib/people/members.ts";
import { TOOLS } from "../../tools/registry.ts";
import { chartSeries, headlineFigures } from "../../toolkit/insight_runs.ts";
import { harness } from "./harness.ts";
import { OWNER, saveCohort, saveItem } from "../helpers/saved.ts";

const output = TOOLS.find((t) => t.name === "behavior_saved")!.output;

Deno.test("behavior_saved: lists, runs insights and dashboards, sizes cohorts, through HTTP and MCP", async () => {
  const h = await harness({ visitors: 60 });
  try {
    await addMember(h.deps.kv, h.deps.clock, h.t.org, OWNER.user, "owner");
    const member = { user: "user-member", role: "member" as const };
    await addMember(h.deps.kv, h.deps.clock, h.t.org, member.user, "member");
    const cohort = await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Signed up", {
      kind: "event",
      event: "sign_up",
    });
    const funnel = await saveItem(h.deps, h.t.org, h.t.touchpoint, "insight", {
      name: "Pricing to sign-up",
      tool: "behavior_funnel",
      input: { steps: [{ page: "/pricing" }, { event: "sign_up" }], period: "last_28_days" },
    }, member);
    const pages = await saveItem(h.deps, h.t.org, h.t.touchpoint, "insight", {
      name: "Pages of sign-ups",
      tool: "behavior_pages",
      input: { cohort: "Signed up" },
    });
    await saveItem(h.deps, h.t.org, h.t.touchpoint, "dashboard", {
      name: "Weekly",
      insights: [funnel.id, pages.id],
    });

    const list = await h.ask("behavior_saved", {});
    assert.deepEqual(checkAnswer(list, { identifiers: h.site.identifiers, output }), []);
    assert.equal(list.items_total, 4);
    assert.deepEqual(list.items.map((x: { kind: string; name: string }) => `${x.kind}:${x.name}`), [
      "cohort:Signed up",
      "insight:Pages of sign-ups",
      "insight:Pricing to sign-up",
      "dashboard:Weekly",
    ]);
    const byName = Object.fromEntries(list.items.map((x: { name: string }) => [x.name, x]));
    assert.equal(byName["Pricing to sign-up"].author_role, "member");
    assert.equal(byName["Signed up"].author_role, "owner");
    assert.equal(byName["Weekly"].defines, "Pricing to sign-up, Pages of sign-ups");
    // an insight's tool in words, with its name to call and what it asks
    assert.equal(byName["Pages of sign-ups"].defines, "Pages (behavior_pages): cohort Signed up");
    assert.ok(!JSON.stringify(list).includes("user-member"), "no author id in answers");
    const paged = await h.ask("behavior_saved", { limit: 1, offset: 1 });
    assert.deepEqual([paged.items.length, paged.items[0].name, paged.items_total], [
      1,
      "Pages of sign-ups",
      4,
    ]);

    // an insight answers as its tool does
    const run = await h.ask("behavior_saved", { action: "insight", name: "pricing to SIGN-UP" });
    const direct = await h.ask("behavior_funnel", funnel.input);
    assert.deepEqual(run.insight.answer.steps, direct.steps);
    assert.equal(run.scope.period.name, "last_28_days");
    const other = await h.ask("behavior_saved", {
      action: "insight",
      name: funnel.id,
      period: "last_7_days",
    });
    assert.equal(other.scope.period.name, "last_7_days");

    const dash = await h.ask("behavior_saved", { action: "dashboard", name: "Weekly" });
    assert.deepEqual(checkAnswer(dash, { identifiers: h.site.identifiers, output }), []);
    assert.deepEqual(dash.dashboard.insights.map((x: { name: string }) => x.name), [
      "Pricing to sign-up",
      "Pages of sign-ups",
    ]);
    assert.equal(dash.dashboard.insights[0].chart.points[0].label, "/pricing");
    assert.equal(dash.dashboard.insights[0].chart.points[0].value, direct.steps[0].visitors);
    assert.match(dash.dashboard.insights[1].scope_filter, /saved cohort "Signed up"/);

    const size = await h.ask("behavior_saved", { action: "cohort", name: cohort.id });
    assert.equal(size.scope.period.name, "last_30_days");
    assert.equal(typeof size.cohort.visitors, "number");

    // the same answers through MCP
    const client = new Client({ name: "saved", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
        requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
      }),
    );
    for (
      const input of [{}, { action: "dashboard", name: "Weekly" }, { action: "cohort", name: "Signed up" }]
    ) {
      const viaMcp = await client.callTool({ name: "behavior_saved", arguments: input });
      assert.ok(!viaMcp.isError, JSON.stringify(viaMcp.content));
      assert.deepEqual(viaMcp.structuredContent, await h.ask("behavior_saved", input));
    }
    await client.close();

    // saved items that no longer validate answer with what is wrong, never a 500
    const stale = { ...funnel, input: { steps: [{ page: "/pricing" }] } };
    await h.deps.kv.set(keys.saved(h.t.org, "insight", funnel.id), stale);
    const bad = await h.askRaw("behavior_saved", { action: "insight", name: "Pricing to sign-up" });
    assert.equal(bad.status, 422);
    assert.match((await bad.json()).error, /no longer validates: steps: a funnel has 2 to 8 steps/);
    const dash2 = await h.ask("behavior_saved", { action: "dashboard", name: "Weekly" });
    assert.match(dash2.dashboard.insights[0].error, /no longer validates/);
    assert.equal(dash2.dashboard.insights[1].error, null);
    await h.deps.kv.set(keys.saved(h.t.org, "cohort", cohort.id), {
      ...cohort,
      definition: { kind: "event" },
    });
    const badCohort = await h.askRaw("behavior_pages", { cohort: "Signed up" });
    assert.equal(badCohort.status, 422);
    assert.match((await badCohort.json()).error, /cohort "Signed up" no longer validates/);
    const missing = await h.askRaw("behavior_saved", { action: "dashboard", name: "Monthly" });
    assert.equal(missing.status, 422);
    assert.match((await missing.json()).error, /no saved dashboard "Monthly"; saved: "Weekly"/);
  } finally {
    h.close();
  }
});

Deno.test("behavior_saved: a dashboard withholds a group that reads fewer than 5 (never 0) and keeps the insight's notices", async () => {
  const h = await harness({ visitors: 60 });
  try {
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "pricing", { kind: "page", path: "/pricing" });
    const input = { cohort: "pricing", period: "last_28_days", interval: "week" };
    const ins = await saveItem(h.deps, h.t.org, h.t.touchpoint, "insight", {
      name: "Pricing by week",
      tool: "behavior_trends",
      input,
    });
    await saveItem(h.deps, h.t.org, h.t.touchpoint, "dashboard", { name: "Board", insights: [ins.id] });
    const direct = await h.ask("behavior_trends", input);
    const small = direct.series.filter((s: { visitors: unknown }) => s.visitors === "fewer than 5");
    assert.ok(
      small.length > 0,
      "the site has a week of 1 to 4 cohort visitors, else this test could not fail",
    );
    const dash = await h.ask("behavior_saved", { action: "dashboard", name: "Board" });
    const points = dash.dashboard.insights[0].chart.points;
    assert.deepEqual(
      points.map((p: { value: number | null }) => p.value),
      direct.series.slice(0, 12).map((s: { visitors: unknown }) =>
        typeof s.visitors === "number" ? s.visitors : null
      ),
    );
    // the insight's own notices (the call's data-freshness line is the dashboard's own)
    const own = direct.notices.filter((n: string) => !n.startsWith("data fresh"));
    assert.ok(own.some((n: string) => n.includes("fewer than 5")), JSON.stringify(direct.notices));
    for (const n of own) {
      assert.ok(dash.notices.includes(`Pricing by week: ${n}`), JSON.stringify(dash.notices));
    }
    assert.deepEqual(checkAnswer(dash, { output }), []);
  } finally {
    h.close();
  }
});

Deno.test("behavior_saved: a dashboard's headline is the answer's summary or first figures, never its settings; a crawler chart counts requests", () => {
  const coverage = {
    scope: {},
    lookback_days: 90,
    stale_after_days: 14,
    summary: { known_pages: 40, pages_read_by_search: 30, pages_never_read: 10, stale_pages: 2 },
    crawlers: [{ crawler: "GPTBot", vendor: "OpenAI", category: "ai_crawler", requests: 12, pages_read: 5 }],
    crawlers_total: 1,
    pages_never_read: [{ page: "/a", pageviews: 3, visitors: 2 }],
    pages_never_read_total: 10,
    notices: [],
  };
  assert.deepEqual(headlineFigures(coverage).map((f) => `${f.name} ${f.value}`), [
    "known_pages 40",
    "pages_read_by_search 30",
    "pages_never_read 10",
    "stale_pages 2",
  ]);
  const chart = chartSeries(coverage)!;
  assert.deepEqual([chart.field, chart.measure, chart.points[0].label], ["crawlers", "requests", "GPTBot"]);

  const pages = {
    scope: {},
    sort: { by: "visitors", order: "desc" },
    offset: 0,
    pages: [{ page: "/pricing", visitors: 40, pageviews: { value: 55, previous: 50, change: 0.1 } }],
    pages_total: 9,
    notices: [],
  };
  assert.deepEqual(headlineFigures(pages), [
    { name: "pages", value: 9 },
    { name: "/pricing: visitors", value: 40 },
    { name: "/pricing: pageviews", value: 55, previous: 50, change: 0.1 },
  ]);
  const themes = {
    scope: {},
    apps: [{ app: { id: "a1", name: "Acme" }, reviews: 120, analysed: 118, themes: [], themes_total: 4 }],
    apps_total: 1,
    notices: [],
  };
  assert.deepEqual(headlineFigures(themes).map((f) => `${f.name} ${f.value}`), [
    "apps 1",
    "Acme: reviews 120",
    "Acme: analysed 118",
  ]);
});
