/**
 * Reports in the app: owners and admins generate one now, members cannot; a member who opted in gets the
 * report by real mail (a local SMTP server) once, the others none; the report page carries its charts. A
 * report's page reads as people read: each finding's calls in words (no tool ids, JSON or record ids), periods
 * as dates, an app's report scoped to its reviews, and review themes without "mostly other".
 */
import assert from "node:assert/strict";
import { joinOrg, orgUrl, peopleWorld } from "../../helpers/people.ts";
import { startLocalSmtp } from "../../helpers/smtp.ts";
import { smtpMailer } from "../../../lib/mail.ts";
import { plantedWorld, WEEK_START } from "../../lib/reports/planted.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { generateNow } from "../../../pipeline/reports_generate.ts";
import { getOrg, getTouchpoint } from "../../../lib/tenancy/admin.ts";
import { listApps } from "../../../lib/feedback/store.ts";
import { subjectOf } from "../../lib/reports/mail_subject.ts";
import { closedPeriods } from "../../../lib/reports/periods.ts";

Deno.test("app reports: generate now (owners and admins), opt-in mail sent once, the page with its charts", async () => {
  const w = await peopleWorld();
  // a week on: the last closed week is the one the site was added in (one that ended before is not reported)
  const before = closedPeriods("weekly", w.deps.clock.now(), "UTC", 1)[0];
  w.deps.clock.advance(7 * 86_400_000);
  const smtp = await startLocalSmtp();
  const owner = await w.join("owner@acme.test", "owner");
  const member = await w.join("member@acme.test", "member");
  await w.join("quiet@acme.test", "member");
  (w.deps as { mail?: unknown }).mail = await smtpMailer(smtp.url, "reports@service.test");
  const reports = orgUrl(w.org, "reports");

  const empty = await member.open(reports);
  assert.equal(empty.status, 200);
  assert.match(empty.html, /No report yet/);
  assert.ok(!empty.html.includes("Generate report"), "members see no generate form");
  const optedIn = await member.submit(`${reports}/mail`, { on: "1" });
  assert.match(optedIn.html, /You will get new reports by mail/);
  const refused = await member.submit(`${reports}/generate`, {
    touchpoint: w.tenant.touchpoint,
    kind: "weekly",
  });
  assert.match(refused.html, /only owners and admins can generate a report/);

  await owner.open(reports);
  const early = await owner.submit(`${reports}/generate`, {
    touchpoint: w.tenant.touchpoint,
    period: `weekly:${before.key}`,
  });
  assert.match(early.html, /Acme site was added on [^,]+, after [^,]+, and has no data in it/);
  const made = await owner.submit(`${reports}/generate`, { touchpoint: w.tenant.touchpoint, kind: "weekly" });
  assert.match(made.html, /Report of Acme site, week of \d{1,2}[^,]* \d{4}, generated/);
  const mail = await smtp.waitFor((m) => m.to.includes("member@acme.test"), "the report mail");
  assert.match(subjectOf(mail.raw), /^Weekly report: Acme site, week of \d{1,2}[^,]* \d{4}$/);
  // asked for in the app: the link is absolute, on the origin the owner used (PUBLIC_URL wins when set)
  assert.match(mail.text, /Open the report: http:\/\/[^/\s]+\/app\/o\/org_[^/]+\/reports\/weekly-/);
  const again = await owner.submit(`${reports}/generate`, {
    touchpoint: w.tenant.touchpoint,
    kind: "weekly",
  });
  assert.match(again.html, /was already there; reports never change once made/);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(smtp.received.length, 1, "one mail: to the member who opted in, once");

  const link = made.html.match(/href="(\/app\/o\/[^"]+\/reports\/weekly-[^"]+)"/)?.[1];
  assert.ok(link, "the list links the report");
  const page = await member.open(link);
  assert.equal(page.status, 200);
  // each chart is drawn at a wide and at a phone's width (the stylesheet shows one): two charts, four drawings
  assert.equal((page.html.match(/<div class="chart-wide"><svg/g) ?? []).length, 2, "two charts");
  assert.equal(
    (page.html.match(/<div class="chart-narrow"><svg/g) ?? []).length,
    2,
    "each also at a phone's width",
  );
  assert.ok(!page.html.includes("<style"), "no inline style: the CSP allows none");
  const stranger = await member.open(orgUrl(w.org, "reports/weekly-2020-W01-nope"));
  assert.equal(stranger.status, 404);
  await smtp.stop();
  w.close();
});

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** The text a person reads in a piece of the page: tags left out, entities read. */
const textOf = (html: string) =>
  html.replace(/<[^>]*>/g, " ").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

/**
 * The planted weeks (tests/lib/reports/planted.ts) with 12 more reviews of the iOS app about customer support
 * that are no bug report, request, question, price complaint or praise; both weekly reports made, and a member
 * signed in to read them.
 */
async function reportPages() {
  const w = await plantedWorld(true);
  const app = (await listApps(w.deps.kv, w.t.org)).find((a) => a.touchpoint === w.ios)!;
  const lines = Array.from({ length: 12 }, (_, i) =>
    JSON.stringify({
      id: `support-${i}`,
      rating: 2,
      text: "Customer support was rude to me on the phone.",
      date: new Date(WEEK_START + i * 11 * 3_600_000).toISOString(),
      version: "2.1",
      author: `Support ${i}`,
    }));
  const imported = await w.app.request(`/admin/v1/orgs/${w.t.org}/apps/${app.id}/reviews/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  assert.equal(imported.status, 200, await imported.text());
  const org = await getOrg(w.deps, w.t.org);
  const made = async (tp: string) => {
    const g = await generateNow(w.app.ctx, org, await getTouchpoint(w.deps, w.t.org, tp), "weekly");
    assert.equal(g.state, "created");
    return g.state === "created" ? g.report : null!;
  };
  const site = await made(w.t.touchpoint);
  const ios = await made(w.ios);
  const reader = await joinOrg(w.app, w.t.org, "reader@acme.test", "member");
  const open = async (id: string) => {
    const page = await reader.open(orgUrl(w.t.org, `reports/${id}`));
    assert.equal(page.status, 200);
    return page.html;
  };
  const reportGet = async (id: string) =>
    await (await w.app.request("/v1/read/report_get", {
      method: "POST",
      headers: { authorization: `Bearer ${w.t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify({ id }),
    })).json() as Json;
  return { w, site, ios, open, reportGet };
}

const detailsOf = (html: string) =>
  [...html.matchAll(/<details>([\s\S]*?)<\/details>/g)].map((m) => textOf(m[1]));

Deno.test("app report page: how to see a finding is said in words (question, website or app, dates, filter) with a link to ask it", async () => {
  const { w, site, ios, open, reportGet } = await reportPages();
  const sitePage = await open(site.id);
  const how = detailsOf(sitePage);
  assert.ok(how.length > 0, "each finding says how to see it");
  for (const text of how) assert.doesNotMatch(text, /behavior_|feedback_|[{}]|"touchpoint"|tp_|app_/, text);
  const pricing = site.findings.find((f) => f.kind === "page_rose" && f.numbers.page === "/pricing");
  assert.ok(pricing, "the planted page finding");
  const seen = textOf(sitePage);
  assert.ok(
    seen.includes("Top pages · Acme site · 16–22 Nov 2026 · pages matching “/pricing”"),
    `the page's call in words: ${how.join(" | ")}`,
  );
  assert.ok(seen.includes("Top pages · Acme site · 9–15 Nov 2026 · pages matching “/pricing”"));
  assert.ok(
    sitePage.includes(
      `href="/app/o/${w.t.org}/insights/new?tool=behavior_pages&amp;touchpoint=${w.t.touchpoint}"`,
    ),
    "a link to ask it, on the report's own website or app",
  );
  // the raw call stays where an assistant reads the report
  const got = await reportGet(site.id);
  const rose = got.report.findings.find((f: Json) => f.kind === "page_rose" && f.numbers.page === "/pricing");
  assert.deepEqual(rose.reproduce[0], {
    tool: "behavior_pages",
    input: { touchpoint: w.t.touchpoint, period: "2026-11-16..2026-11-22", search: "/pricing" },
  });
  // an app's calls name the app, not its id
  const iosPage = await open(ios.id);
  assert.ok(
    textOf(iosPage).includes("App reviews: themes · Acme · 16–22 Nov 2026 · theme “"),
    textOf(iosPage),
  );
  for (const text of detailsOf(iosPage)) assert.doesNotMatch(text, /feedback_|[{}]|app_/, text);
  w.close();
});

Deno.test("app report page: the period and the one compared with read as dates", async () => {
  const { w, site, open } = await reportPages();
  const page = await open(site.id);
  const seen = textOf(page);
  assert.ok(seen.includes("Compared with 9–15 Nov 2026."), "the period before as dates");
  assert.ok(seen.includes("16–22 Nov 2026 (UTC)"), "the period as dates");
  assert.ok(!page.includes("2026-11-09..2026-11-15"), "no range syntax");
  assert.ok(!page.includes("2026-11-16..2026-11-22"), "no range syntax");
  w.close();
});

Deno.test("app report page: an app's report is scoped to its app-store reviews, on the page and in report_get", async () => {
  const { w, ios, open, reportGet } = await reportPages();
  const text = textOf(await open(ios.id));
  const meta = text.match(/\(UTC\)[^.]*\./)?.[0] ?? "";
  assert.match(meta, /app-store reviews of Acme/, meta);
  assert.doesNotMatch(meta, /visitors/, meta);
  assert.equal((await reportGet(ios.id)).scope.traffic, "app-store reviews of Acme");
  w.close();
});

Deno.test('app report page: a rising review theme says what most reviews are in words, nothing when that is "other"', async () => {
  const { w, ios, open } = await reportPages();
  const themes = ios.findings.filter((f) => f.kind === "review_theme_rising");
  const support = themes.find((f) => f.numbers.theme === "customer support");
  assert.ok(support, `the support theme rises: ${JSON.stringify(themes.map((f) => f.claim))}`);
  assert.doesNotMatch(support.claim, /mostly/, support.claim);
  const crash = themes.find((f) => /crash/i.test(String(f.numbers.theme)));
  assert.match(crash!.claim, /, mostly bug reports\.$/, crash!.claim);
  const text = textOf(await open(ios.id));
  assert.doesNotMatch(text, /mostly other/);
  assert.doesNotMatch(text, /mostly bug report(?!s)/);
  w.close();
});

Deno.test("app report page: the title and the reports list name the week's dates, not its code; the generated time reads as a date", async () => {
  const { w, site, ios, open } = await reportPages();
  const page = textOf(await open(site.id));
  assert.ok(page.includes("Acme site: Week of 16–22 Nov 2026"), page.slice(0, 400));
  assert.ok(page.includes("Week of 16–22 Nov 2026: "), "the headline too");
  assert.doesNotMatch(page, /W47/);
  const at = new Date(site.generated_at);
  const hhmm = site.generated_at.slice(11, 16);
  const day = `${at.getUTCDate()} ${
    at.toLocaleString("en-GB", { month: "short", timeZone: "UTC" })
  } ${at.getUTCFullYear()}`;
  assert.ok(page.includes(`Generated ${day}, ${hhmm} UTC on request.`), page);
  assert.doesNotMatch(page, /Generated \d{4}-\d{2}-\d{2}/);
  const reader = await joinOrg(w.app, w.t.org, "lister@acme.test", "admin");
  const list = await reader.open(orgUrl(w.t.org, "reports"));
  const listed = textOf(list.html);
  assert.ok(listed.includes("Week of 16–22 Nov 2026"), listed);
  assert.doesNotMatch(listed, /W4\d/, "no week code in the list or the period choices");
  assert.ok(list.html.includes(`/reports/${ios.id}"`), "ids stay in the links");
  assert.match(listed, /Last month: [A-Z][a-z]+ \d{4}/);
  w.close();
});
