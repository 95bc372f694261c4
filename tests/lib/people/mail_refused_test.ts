/**
 * A mail server that refuses a recipient (mailbox full, a typo'd domain, greylisting): the reset page must
 * answer as it does for an unknown address (a 500 would tell that the account exists), an invitation still
 * stands and says its mail did not go, and no log line carries the address, which the server's reply quotes.
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { startLocalSmtp } from "../../helpers/smtp.ts";
import { AppClient } from "../../helpers/app_client.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { smtpMailer } from "../../../lib/mail.ts";

const REFUSED = "alice.private@acme.test";

Deno.test("mail refused: reset answers as for no account, invitation stands unmailed, logs name no address", async () => {
  const smtp = await startLocalSmtp({ refuse: (to) => to === REFUSED || to.startsWith("zed.") });
  const w = await peopleWorld();
  try {
    const owner = await w.join("olga@acme.test", "owner");
    await w.join(REFUSED, "member");
    // From here on mail goes through the real SMTP server.
    (w.deps as { mail: unknown }).mail = await smtpMailer(smtp.url, "service@acme.test");

    const anon = new AppClient(w.app);
    const known = await anon.post("/app/reset", { email: REFUSED }, { csrf: null });
    const unknown = await anon.post("/app/reset", { email: "nobody@acme.test" }, { csrf: null });
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    const said = (html: string) => html.match(/<main[\s\S]*<\/main>/)?.[0].replace(/name="_csrf"[^>]*/g, "");
    assert.equal(said(known.html), said(unknown.html));

    // A recipient the server takes still gets the mail (the refusal above is the server's, not ours).
    const ok = await anon.post("/app/reset", { email: "olga@acme.test" }, { csrf: null });
    assert.equal(ok.status, 200);
    await smtp.waitFor((m) => m.to.includes("olga@acme.test"), "reset to olga");

    const members = orgUrl(w.org, "settings/members");
    const page = await owner.submit(`${members}/invite`, { email: "zed.x@acme.test", role: "member" });
    assert.equal(page.status, 200);
    assert.match(
      page.html,
      /Invitation made for zed\.x@acme\.test, but the mail server did not take the message/,
    );
    assert.match(page.html, /Pending invitations/);

    const api = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/invitations`, {
      email: "zed.y@acme.test",
      role: "member",
    });
    assert.equal(api.mailed, false);
    assert.match(api.invitation_url, /\/app\/invite\//);
    const taken = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/invitations`, {
      email: "mo@acme.test",
      role: "member",
    });
    assert.equal(taken.mailed, true);

    const lines = w.deps.log.lines;
    const refusals = lines.filter((l) => l.includes('mail not sent","error'));
    assert.equal(refusals.length, 3, lines.join("\n"));
    assert.ok(refusals.every((l) => /answered 552/.test(l)), refusals.join("\n"));
    assert.ok(refusals.some((l) => l.includes("a***@acme.test")), refusals.join("\n"));
    for (const address of [REFUSED, "zed.x@acme.test", "zed.y@acme.test", "mailbox full"]) {
      assert.ok(!lines.some((l) => l.includes(address)), `a log line quotes ${address}`);
    }
  } finally {
    w.close();
    await smtp.stop();
  }
});
