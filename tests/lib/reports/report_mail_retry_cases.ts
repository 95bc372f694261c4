// A report's mail when the mail server cannot take it at the moment the report completes: each recipient is
// tried again by the next hourly runs for a day (MAIL_RETRY_MS), and never mailed twice. Real KV file, the
// hourly job's body (generateDueReports), a real SMTP server on loopback (tests/helpers/smtp.ts) and the
// production SMTP mailer; "unreachable" is a loopback port nothing listens on.
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { startLocalSmtp } from "../../helpers/smtp.ts";
import { compactAll } from "../../../lib/jobs/compact.ts";
import { generateDueReports, REPORT_ENV } from "../../../pipeline/reports_generate.ts";
import { createUser } from "../../../lib/people/users.ts";
import { addMember } from "../../../lib/people/members.ts";
import { MAIL_RETRY_MS, mailReport, setMailOptIn } from "../../../lib/reports/mail.ts";
import { listReports } from "../../../lib/reports/store.ts";
import { type Mailer, smtpMailer } from "../../../lib/mail.ts";
import { keys } from "../../../lib/store/keys.ts";
import { subjectOf } from "./mail_subject.ts";

const HOUR = 3_600_000;

async function setup(refused: Set<string> = new Set()) {
  const deps = await testDeps();
  const smtp = await startLocalSmtp({ refuse: (to) => refused.has(to) });
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const nowhere = `smtp://127.0.0.1:${closed.addr.port}`;
  closed.close();
  const up = await smtpMailer(smtp.url, "reports@service.test");
  const down = await smtpMailer(nowhere, "reports@service.test");
  deps.clock.set(Date.parse("2026-09-20T10:00:00Z")); // added before the month reported, October
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
  const users: Record<string, string> = {};
  for (const email of ["ann@acme.test", "bob@acme.test"]) {
    const u = await createUser(
      deps.kv,
      deps.clock,
      email,
      "correct horse battery staple",
      deps.config.passwordCost,
    );
    await addMember(deps.kv, deps.clock, t.org, u.id, "member");
    await setMailOptIn(deps.kv, t.org, u.id, true);
    users[email] = u.id;
  }
  const batch = [0, 1, 2].map((i) =>
    event({
      anonymous_id: `v${i}`,
      session_id: `s${i}`,
      device_time: new Date(deps.clock.now()).toISOString(),
    })
  );
  const res = await app.request("/v1/behavior/events", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "https://acme.test" },
    body: JSON.stringify({ api_key: t.publicKey, batch }),
  });
  assert.ok(res.ok, await res.text());
  deps.clock.set(Date.parse("2026-11-24T01:23:00Z")); // the week 2026-W47 and the month 2026-10 are closed
  await compactAll(deps);
  const mailTo = (to: string) =>
    smtp.received.filter((m) => m.to.includes(to)).map((m) => subjectOf(m.raw)).sort();
  const done = async () => {
    await smtp.stop();
    deps.kv.close();
  };
  const mail = (m: Mailer | undefined) => void ((deps as { mail?: Mailer }).mail = m);
  return { deps, app, t, smtp, up, down, users, mail, mailTo, done };
}

const BOTH = ["Monthly report: Acme site, October 2026", "Weekly report: Acme site, week of 16–22 Nov 2026"];

Deno.test("mail server unreachable when the reports complete: the next hourly run mails them, once", async () => {
  const s = await setup();
  try {
    s.mail(s.down);
    assert.equal(await generateDueReports(s.app.ctx), 2);
    assert.equal(s.smtp.received.length, 0);
    const failed = s.deps.log.lines.filter((l) => l.includes("report mail failed"));
    assert.equal(failed.length, 4, "two reports, two recipients");
    assert.ok(failed.every((l) => !/ann@|bob@/.test(l)), "no address in a log line, masked only");

    s.mail(s.up);
    s.deps.clock.advance(HOUR);
    assert.equal(await generateDueReports(s.app.ctx), 0, "stored already");
    assert.deepEqual(s.mailTo("ann@acme.test"), BOTH);
    assert.deepEqual(s.mailTo("bob@acme.test"), BOTH);
    s.deps.clock.advance(HOUR);
    await generateDueReports(s.app.ctx);
    assert.equal(s.smtp.received.length, 4, "each recipient once");
  } finally {
    await s.done();
  }
});

Deno.test("one recipient refused, the other mailed: only the refused one is tried again", async () => {
  const refused = new Set(["ann@acme.test"]);
  const s = await setup(refused);
  try {
    s.mail(s.up);
    assert.equal(await generateDueReports(s.app.ctx), 2);
    assert.deepEqual(s.mailTo("ann@acme.test"), []);
    assert.deepEqual(s.mailTo("bob@acme.test"), BOTH);
    refused.clear();
    s.deps.clock.advance(HOUR);
    await generateDueReports(s.app.ctx);
    assert.deepEqual(s.mailTo("ann@acme.test"), BOTH);
    assert.deepEqual(s.mailTo("bob@acme.test"), BOTH, "bob not mailed again");
  } finally {
    await s.done();
  }
});

Deno.test("the retry window: a mail still failing a day after the report is not tried any more", async () => {
  const s = await setup();
  try {
    s.mail(s.down);
    await generateDueReports(s.app.ctx);
    s.mail(s.up);
    s.deps.clock.advance(MAIL_RETRY_MS + HOUR);
    await generateDueReports(s.app.ctx);
    assert.equal(s.smtp.received.length, 0);
  } finally {
    await s.done();
  }
});

Deno.test("two instances mailing one report at once: each recipient gets it once", async () => {
  const s = await setup();
  try {
    s.mail(undefined); // generated with no mailer configured: nothing sent, nothing marked
    assert.equal(await generateDueReports(s.app.ctx), 2);
    s.mail(s.up);
    const weekly = (await listReports(s.deps.kv, s.t.org, REPORT_ENV)).find((r) => r.kind === "weekly")!;
    const sent = await Promise.all([1, 2, 3].map(() => mailReport(s.deps, weekly)));
    assert.equal(sent.reduce((a, b) => a + b, 0), 2);
    assert.equal(s.smtp.received.length, 2);
    assert.deepEqual(s.smtp.received.map((m) => m.to[0]).sort(), ["ann@acme.test", "bob@acme.test"]);
  } finally {
    await s.done();
  }
});

Deno.test("at most once: a send cut off mid-way (the instance stopped) is not sent again", async () => {
  const s = await setup();
  try {
    s.mail(undefined);
    await generateDueReports(s.app.ctx);
    const weekly = (await listReports(s.deps.kv, s.t.org, REPORT_ENV)).find((r) => r.kind === "weekly")!;
    // what an instance stopped between its claim and the send's end leaves
    const mark = keys.reportMailedTo(s.t.org, REPORT_ENV, weekly.id, s.users["ann@acme.test"]);
    await s.deps.kv.set(mark, { state: "sending", at: s.deps.clock.now() });
    s.mail(s.up);
    assert.equal(await mailReport(s.deps, weekly), 1);
    assert.deepEqual(s.smtp.received.map((m) => m.to[0]), ["bob@acme.test"]);
  } finally {
    await s.done();
  }
});
