/**
 * A crawler hit reported with a non-public address (a site behind its own proxy without trustProxy) is not the
 * crawler's address: it is unverifiable at arrival with a reason saying so, no DNS is asked, and the sweep
 * never turns it spoofed. A public address still verifies.
 */
import assert from "node:assert/strict";
import { hit, setup } from "./server_events_helpers.ts";
import { EMPTY_DNS_SETTLE_MS, sweepPendingVerifications } from "../../lib/jobs/verify.ts";
import { createVerifier } from "../../lib/crawl/verify.ts";

const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const NON_PUBLIC: Record<string, string> = {
  "10.0.0.5": "private",
  "172.16.3.4": "private",
  "192.168.1.20": "private",
  "127.0.0.1": "loopback",
  "169.254.10.1": "link-local",
  "100.64.0.7": "shared (CGNAT)",
  "0.0.0.0": "unspecified",
  "::ffff:10.0.0.6": "private",
  "::1": "loopback",
  "::": "unspecified",
  "fd00::5": "unique local",
  "fe80::1": "link-local",
};

/** DNS that would vouch for every address as Googlebot, and counts the questions. */
function vouchingDns(t: Awaited<ReturnType<typeof setup>>) {
  const asked: string[] = [];
  t.deps.dns.reverse = (ip: string) => {
    asked.push(ip);
    return Promise.resolve(["crawl-host.googlebot.com"]);
  };
  t.deps.dns.forward = () => Promise.resolve(Object.keys(NON_PUBLIC).concat("192.0.2.44"));
  return asked;
}

Deno.test("server events: a non-public crawler address is unverifiable (not spoofed, no DNS asked)", async () => {
  const t = await setup();
  try {
    const asked = vouchingDns(t);
    const hits = Object.keys(NON_PUBLIC).map((ip) => hit({ ip, user_agent: GOOGLEBOT }));
    assert.equal((await t.send(hits)).accepted, hits.length);
    // the sweep, then again once an empty DNS answer would have been judged
    t.deps.clock.advance(2 * 60_000);
    await sweepPendingVerifications(t.app.ctx);
    t.deps.clock.advance(EMPTY_DNS_SETTLE_MS);
    await sweepPendingVerifications(t.app.ctx);
    const stored = await t.storedHits();
    for (const h of hits) {
      const ip = h.ip as string;
      const s = stored.find((x) => x.id === h.event_id)!;
      assert.equal(s.verification, "unverifiable", ip);
      const v = await t.verification(h.event_id as string);
      if (NON_PUBLIC[ip] === "unspecified") {
        assert.equal(v, null, "ingest drops an unspecified address: a missing one, no reason recorded");
        continue;
      }
      assert.equal(v?.outcome, "unverifiable", ip);
      assert.equal(v?.method, "none", ip);
      assert.match(
        v!.reason,
        new RegExp(`^not a public address \\(${NON_PUBLIC[ip].replace(/[()]/g, "\\$&")}\\)`),
        ip,
      );
    }
    assert.deepEqual(asked, [], "no DNS question for a non-public address");
  } finally {
    t.deps.kv.close();
  }
});

Deno.test("server events: a public address still verifies (published list, reverse DNS)", async () => {
  const t = await setup();
  try {
    const asked = vouchingDns(t);
    const listed = hit({ ip: "66.249.66.1", user_agent: GOOGLEBOT }); // Google's published list
    const byDns = hit({ ip: "192.0.2.44", user_agent: GOOGLEBOT }); // documentation range: not treated as private
    await t.send([listed, byDns]);
    t.deps.clock.advance(2 * 60_000);
    await sweepPendingVerifications(t.app.ctx);
    const stored = await t.storedHits();
    assert.equal(stored.find((x) => x.id === listed.event_id)!.verification, "verified");
    assert.equal((await t.verification(byDns.event_id as string))?.outcome, "verified");
    assert.deepEqual(asked, ["192.0.2.44"]);
  } finally {
    t.deps.kv.close();
  }
});

Deno.test("verifier: a non-public address (web events reach it through the sweep) is unverifiable without DNS", async () => {
  const t = await setup();
  try {
    const asked = vouchingDns(t);
    const verifier = createVerifier(t.deps);
    for (const [ip, kind] of Object.entries(NON_PUBLIC)) {
      const out = await verifier.verify("Googlebot", ip);
      assert.equal(out.outcome, "unverifiable", ip);
      assert.ok(out.reason.startsWith(`not a public address (${kind})`), `${ip}: ${out.reason}`);
    }
    assert.equal((await verifier.verify("Googlebot", "192.0.2.44")).outcome, "verified");
    assert.deepEqual(asked, ["192.0.2.44"]);
  } finally {
    t.deps.kv.close();
  }
});
