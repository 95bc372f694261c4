/**
 * Reports in the app: owners and admins generate one now, members cannot; a member who opted in gets the
 * report by real mail (a local SMTP server) once, the others none; the report page carries its charts.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { startLocalSmtp } from "../../helpers/smtp.ts";
import { smtpMailer } from "../../../lib/mail.ts";

Deno.test("app reports: generate now (owners and admins), opt-in mail sent once, the page with its charts", async () => {
  const w = await peopleWorld();
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
  const made = await owner.submit(`${reports}/generate`, { touchpoint: w.tenant.touchpoint, kind: "weekly" });
  assert.match(made.html, /Report \d{4}-W\d{2} of Acme site generated/);
  const mail = await smtp.waitFor((m) => m.to.includes("member@acme.test"), "the report mail");
  assert.match(mail.subject, /Weekly report: Acme site/);
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
