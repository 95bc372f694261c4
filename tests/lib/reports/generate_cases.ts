/**
 * Report generation on planted data: every planted finding is found, a quiet week has none, duplicated job
 * runs store one report per slot, and every report answer keeps the answer rules. Reports are read back
 * through the HTTP read API; each finding's reproducing calls are run and must answer.
 */
import assert from "node:assert/strict";
import { plantedWorld } from "./planted.ts";
import { generateDueReports, generateNow } from "../../../pipeline/reports_generate.ts";
import { getOrg, getTouchpoint } from "../../../lib/tenancy/admin.ts";
import { checkAnswer } from "../../../lib/answers/check.ts";
import { toolByName } from "../../../tools/registry.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

async function read(w: Awaited<ReturnType<typeof plantedWorld>>, tool: string, input: Json = {}) {
  const res = await w.app.request(`/v1/read/${tool}`, {
    method: "POST",
    headers: { authorization: `Bearer ${w.t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const body = await res.json();
  assert.equal(res.status, 200, `${tool}: ${JSON.stringify(body)}`);
  const problems = checkAnswer(body, { identifiers: w.identifiers, output: toolByName(tool)!.output });
  assert.deepEqual(problems, [], `${tool} keeps the answer rules`);
  return body;
}

async function weekly(w: Awaited<ReturnType<typeof plantedWorld>>, tp: string) {
  const org = await getOrg(w.deps, w.t.org);
  const g = await generateNow(w.app.ctx, org, await getTouchpoint(w.deps, w.t.org, tp), "weekly");
  assert.equal(g.state, "created");
  const got = await read(w, "report_get", { id: g.state === "created" ? g.report.id : "" });
  return got.report as Json;
}

const sentences = (s: string) => s.split(/(?<=[.!?])\s+(?=[A-Z0-9/])/).length;

Deno.test("reports: the planted page, crawlers, vitals regression and review theme are all found", async () => {
  const w = await plantedWorld(true);
  const site = await weekly(w, w.t.touchpoint);
  const kinds = site.findings.map((f: Json) => f.kind);
  const find = (kind: string, key: string, value: string) =>
    site.findings.find((f: Json) => f.kind === kind && f.numbers[key] === value);
  const page = find("page_rose", "page", "/pricing");
  assert.ok(page, `the doubled page: ${JSON.stringify(site.findings)}`);
  assert.equal(page.numbers.previous, 7 * 7); // visitors 0, 3, 6, ... 18 on each day
  assert.equal(page.numbers.pageviews, 2 * 7 * 7);
  assert.ok(find("crawler_started", "crawler", "ClaudeBot"), `new crawler: ${kinds}`);
  assert.ok(find("crawler_stopped", "crawler", "Bytespider"), `stopped crawler: ${kinds}`);
  const lcp = find("vitals_regression", "page", "/");
  assert.ok(lcp && lcp.numbers.metric === "LCP" && lcp.numbers.rating === "needs improvement", `${kinds}`);
  const visitors = find("headline_change", "metric", "visitors");
  assert.ok(visitors && visitors.numbers.value === 210 && visitors.numbers.previous === 140, `${kinds}`);
  const driver = site.findings.find((f: Json) =>
    f.kind === "change_driver" && f.numbers.metric === "visitors"
  );
  assert.ok(driver && /newsletter|Email|blog/.test(String(driver.numbers.segment)), JSON.stringify(driver));
  assert.ok(find("robots_violation", "crawler", "GPTBot"), `robots.txt violation: ${kinds}`);
  const spoof = find("spoofed_agent", "crawler", "GPTBot");
  assert.ok(spoof && spoof.numbers.spoofed_requests === 14, `spoofed agent: ${JSON.stringify(spoof)}`);
  const funnel = find("funnel_change", "insight", "Home to docs");
  assert.ok(funnel && funnel.numbers.conversion === 0.7 && funnel.numbers.previous === 0.35, `${kinds}`);
  assert.equal(site.period_key, "2026-W47");
  const n = sentences(site.summary);
  assert.ok(n >= 3 && n <= 5, `3-5 sentences: ${site.summary}`);
  // every finding names calls that answer, with the numbers it claims in them
  for (const f of site.findings) {
    for (const c of f.reproduce) await read(w, c.tool, c.input);
  }
  const shown = await read(w, "behavior_pages", page.reproduce[0].input);
  assert.equal(shown.pages.find((p: Json) => p.page === "/pricing").pageviews, page.numbers.pageviews);

  const app = await weekly(w, w.ios);
  const theme = app.findings.find((f: Json) => f.kind === "review_theme_rising");
  assert.ok(theme, `rising review theme: ${JSON.stringify(app)}`);
  assert.match(String(theme.numbers.theme), /crash/i);
  w.close();
});

Deno.test("reports: a quiet week has no finding and says so", async () => {
  const w = await plantedWorld(false);
  for (const tp of [w.t.touchpoint, w.ios]) {
    const r = await weekly(w, tp);
    assert.deepEqual(r.findings, [], JSON.stringify(r.findings));
    assert.match(r.summary, /No change against the week before cleared the report's thresholds/);
    const n = sentences(r.summary);
    assert.ok(n >= 3 && n <= 5, r.summary);
  }
  w.close();
});

Deno.test("reports: duplicated job runs store one report per touchpoint, kind and period; complete ones never change", async () => {
  const w = await plantedWorld(true);
  const created = await Promise.all([generateDueReports(w.app.ctx), generateDueReports(w.app.ctx)]);
  // two touchpoints × (weekly, monthly): four reports made, by one run or split between the two
  assert.equal(created[0] + created[1], 4);
  const list = await read(w, "reports_list");
  assert.equal(list.reports_total, 4);
  assert.equal(new Set(list.reports.map((r: Json) => r.id)).size, 4);
  const before = await read(w, "report_get", { id: list.reports[0].id });
  w.deps.clock.advance(3_600_000);
  assert.equal(await generateDueReports(w.app.ctx), 0, "a later run finds them stored");
  const after = await read(w, "report_get", { id: list.reports[0].id });
  assert.equal(after.report.generated_at, before.report.generated_at);
  assert.deepEqual(after.report.findings, before.report.findings);
  // filters and paging
  const weeklyOnly = await read(w, "reports_list", { kind: "weekly", touchpoint: w.ios });
  assert.equal(weeklyOnly.reports_total, 1);
  assert.equal(weeklyOnly.reports[0].touchpoint.id, w.ios);
  const page2 = await read(w, "reports_list", { limit: 3, offset: 3 });
  assert.equal(page2.reports.length, 1);
  const inOctober = await read(w, "reports_list", { period: "2026-10" });
  assert.equal(inOctober.reports.every((r: Json) => r.kind === "monthly"), true);
  const newest = await read(w, "report_get", { kind: "weekly", touchpoint: w.t.touchpoint });
  assert.equal(newest.report.period_key, "2026-W47");
  const missing = await w.app.request("/v1/read/report_get", {
    method: "POST",
    headers: { authorization: `Bearer ${w.t.readKey}`, "content-type": "application/json" },
    body: JSON.stringify({ id: "weekly-2020-W01-nope" }),
  });
  // an unknown id is input to change (422), not a missing tool (404)
  assert.equal(missing.status, 422);
  assert.match((await missing.json()).error, /^id: no report "weekly-2020-W01-nope"/);
  w.close();
});

Deno.test("reports: an app's report is built from its reviews (summary, ratings and versions charts)", async () => {
  const w = await plantedWorld(true);
  const org = await getOrg(w.deps, w.t.org);
  const g = await generateNow(w.app.ctx, org, await getTouchpoint(w.deps, w.t.org, w.ios), "weekly");
  assert.equal(g.state, "created");
  const r = g.state === "created" ? g.report : null;
  assert.ok(r?.reviews && r.reviews.reviews > 0, JSON.stringify(r?.reviews));
  assert.match(r!.summary, /got \d+ reviews?/);
  assert.match(r!.headline, /\d+ reviews?/);
  assert.equal(r!.charts.ratings?.length, 5);
  assert.equal(
    r!.charts.ratings!.reduce((n, s) => n + s.value, 0),
    r!.reviews!.reviews,
    "the stars add up to the reviews",
  );
  assert.ok((r!.charts.versions?.length ?? 0) >= 1);
  const sentEvents = r!.charts.visitors_by_day.some((d) => d.value > 0);
  if (!sentEvents) assert.deepEqual(r!.charts.top_pages, [], "no web charts for an app without events");
  w.close();
});
