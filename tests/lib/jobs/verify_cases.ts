import assert from "node:assert/strict";
import { hit, setup } from "../../routes/server_events_helpers.ts";
import type { FakeDns } from "../../helpers/deps.ts";
import { keys } from "../../../lib/store/keys.ts";
import {
  EMPTY_DNS_SETTLE_MS,
  enqueueVerification,
  GIVE_UP_MS,
  handleVerifyMessage,
  sweepPendingVerifications,
} from "../../../lib/jobs/verify.ts";
import {
  type PendingMarker,
  VERIFY_KIND,
  type VerifyMessage,
} from "../../../lib/store/pending_verification.ts";

const AMAZONBOT_UA =
  "Mozilla/5.0 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)";

/** The messages ingest enqueued, rebuilt from the pending markers it wrote beside them. */
async function pendingMessages(kv: Deno.Kv): Promise<(VerifyMessage & { value: PendingMarker })[]> {
  const out = [];
  for await (const e of kv.list<PendingMarker>({ prefix: keys.verifyPendingAll() })) {
    out.push({
      kind: VERIFY_KIND as typeof VERIFY_KIND,
      org: e.key[1] as string,
      marker: e.key[2] as string,
      value: e.value,
    });
  }
  return out;
}

Deno.test("verify job: the queue worker stores each outcome and clears the pending marker", async () => {
  const t = await setup();
  const dns = t.deps.dns as FakeDns;
  dns.ptr.set("192.0.2.10", ["a.crawl.amazonbot.amazon."]);
  dns.a.set("a.crawl.amazonbot.amazon.", ["192.0.2.10"]);
  const good = hit({ ip: "20.171.206.10" }), fake = hit({ ip: "203.0.113.9" });
  const amazon = hit({ ip: "192.0.2.10", user_agent: AMAZONBOT_UA });
  await t.send([good, fake, amazon]);
  const msgs = await pendingMessages(t.deps.kv);
  assert.equal(msgs.length, 1, "one marker for the group committed together");
  assert.deepEqual(
    msgs[0].value.hits.map(([id]) => id),
    [fake.event_id, amazon.event_id],
    "an address in the vendor's list was verified at arrival, the others wait",
  );
  assert.ok(!JSON.stringify(msgs).includes("192.0.2.10"), "markers and messages carry no address");

  assert.equal(await handleVerifyMessage(t.app.ctx, msgs[0]), true);
  const stored = new Map((await t.storedHits()).map((h) => [h.id, h.verification]));
  assert.equal(stored.get(good.event_id as string), "verified");
  assert.equal((await t.verification(fake.event_id as string))!.outcome, "spoofed");
  const a = (await t.verification(amazon.event_id as string))!;
  assert.equal(a.outcome, "verified");
  assert.equal(a.method, "reverse_dns");
  assert.deepEqual(await pendingMessages(t.deps.kv), []);
});

Deno.test("verify job: a repeated message changes nothing; other kinds are not ours", async () => {
  const t = await setup();
  const h = hit({ ip: "203.0.113.9" });
  await t.send([h]);
  const [msg] = await pendingMessages(t.deps.kv);
  await handleVerifyMessage(t.app.ctx, msg);
  const first = await t.verification(h.event_id as string);
  t.deps.clock.advance(60_000);
  assert.equal(await handleVerifyMessage(t.app.ctx, msg), true);
  assert.deepEqual(await t.verification(h.event_id as string), first);
  assert.equal(await handleVerifyMessage(t.app.ctx, { kind: "something.else" }), false);
});

Deno.test("verify job: the cron sweep verifies markers whose message was lost, leaving fresh ones to the queue", async () => {
  const t = await setup();
  const h = hit({ ip: "203.0.113.9" });
  await t.send([h]);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 0, failed: 0 });
  assert.equal(await t.verification(h.event_id as string), null);
  t.deps.clock.advance(6 * 60_000);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 1, failed: 0 });
  assert.equal((await t.verification(h.event_id as string))!.outcome, "spoofed");
  assert.deepEqual(await pendingMessages(t.deps.kv), []);
});

Deno.test("verify job: the real KV queue delivers the work after the response", async () => {
  const t = await setup();
  t.deps.kv.listenQueue((msg) => handleVerifyMessage(t.app.ctx, msg).then(() => {}));
  const h = hit({ ip: "203.0.113.77" });
  await t.send([h]);
  let record = null;
  for (let i = 0; i < 200 && !record; i++) {
    await new Promise((r) => setTimeout(r, 25)); // waiting for delivery, not asserting on time
    record = await t.verification(h.event_id as string);
  }
  assert.equal(record?.outcome, "spoofed");
  t.deps.kv.close();
});

Deno.test("verify job: automated web visitors are checked the same way (enqueueVerification)", async () => {
  const t = await setup();
  const receivedAt = t.deps.clock.now();
  const withIp = crypto.randomUUID(), withoutIp = crypto.randomUUID(), noCheck = crypto.randomUUID();
  await t.deps.kv.set(keys.ip(receivedAt, t.tenant.org, withIp), { ip: "20.171.206.33", at: receivedAt });
  const org = t.tenant.org;
  await enqueueVerification(t.app.ctx, {
    org,
    eventId: withIp,
    token: "GPTBot",
    receivedAt,
    ip: "20.171.206.33",
  });
  await enqueueVerification(t.app.ctx, {
    org,
    eventId: withoutIp,
    token: "GPTBot",
    receivedAt,
    ip: null,
  });
  await enqueueVerification(t.app.ctx, {
    org,
    eventId: noCheck,
    token: "unknown",
    receivedAt,
    ip: "20.171.206.34",
  });
  assert.equal((await t.verification(withoutIp))!.outcome, "unverifiable");
  assert.equal((await t.verification(noCheck))!.outcome, "unverifiable");
  const msgs = await pendingMessages(t.deps.kv);
  assert.deepEqual(msgs.map((m) => m.marker), [withIp]);
  await handleVerifyMessage(t.app.ctx, msgs[0]);
  assert.equal((await t.verification(withIp))!.outcome, "verified");
});

Deno.test("verify job: a check whose DNS fails is retried, and given up as unverifiable after a day", async () => {
  const t = await setup();
  const dns = t.deps.dns as FakeDns;
  dns.reverse = () => Promise.reject(new Error("resolver down"));
  const h = hit({ ip: "192.0.2.80", user_agent: AMAZONBOT_UA });
  await t.send([h]);
  t.deps.clock.advance(6 * 60_000);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 0, failed: 1 });
  assert.equal((await pendingMessages(t.deps.kv)).length, 1, "the marker stays for the next sweep");
  t.deps.clock.advance(GIVE_UP_MS);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 1, failed: 0 });
  assert.equal((await t.verification(h.event_id as string))!.outcome, "unverifiable");
});

Deno.test("verify job: an empty PTR answer (a resolver's SERVFAIL looks the same) is asked again, judged spoofed only once it lasted", async () => {
  const t = await setup();
  const dns = t.deps.dns as FakeDns;
  const warnings: string[] = [];
  const warn = t.deps.log.warn.bind(t.deps.log);
  t.deps.log.warn = (
    msg: string,
    fields?: Record<string, unknown>,
  ) => (warnings.push(msg), warn(msg, fields));
  // one crawler whose resolver fails for a few minutes, one address that never has a PTR name
  const real = hit({ ip: "192.0.2.81", user_agent: AMAZONBOT_UA });
  const fake = hit({ ip: "192.0.2.82", user_agent: AMAZONBOT_UA });
  await t.send([real]);
  await t.send([fake]);
  t.deps.clock.advance(2 * 60_000);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 0, failed: 2 });
  assert.equal(await t.verification(real.event_id as string), null, "not judged on an empty answer");
  assert.equal(await t.verification(fake.event_id as string), null);
  assert.deepEqual(warnings, [], "waiting on an empty answer is not a warning");
  dns.ptr.set("192.0.2.81", ["crawler-9.crawl.amazonbot.amazon"]);
  dns.a.set("crawler-9.crawl.amazonbot.amazon", ["192.0.2.81"]);
  t.deps.clock.advance(EMPTY_DNS_SETTLE_MS);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 2, failed: 0 });
  assert.equal((await t.verification(real.event_id as string))!.outcome, "verified");
  const judged = (await t.verification(fake.event_id as string))!;
  assert.equal(judged.outcome, "spoofed");
  assert.equal(judged.reason, "no PTR record (for 30 minutes)");
});

Deno.test("verify job: one hit waiting on an empty DNS answer does not hold back the other hits of its batch", async () => {
  const t = await setup();
  const dns = t.deps.dns as FakeDns;
  dns.ptr.set("192.0.2.91", ["crawler-5.crawl.amazonbot.amazon"]);
  dns.a.set("crawler-5.crawl.amazonbot.amazon", ["192.0.2.91"]);
  const real = hit({ ip: "192.0.2.91", user_agent: AMAZONBOT_UA });
  const fake = hit({ ip: "192.0.2.92", user_agent: AMAZONBOT_UA }); // no PTR name at all
  const wrong = hit({ ip: "192.0.2.93", user_agent: AMAZONBOT_UA });
  dns.ptr.set("192.0.2.93", ["host.example.net"]); // another domain's name: judged at once
  await t.send([real, fake, wrong]);
  const markers = await pendingMessages(t.deps.kv);
  assert.equal(markers.length, 1, "one batch, one marker");
  t.deps.clock.advance(2 * 60_000);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 2, failed: 1 });
  assert.equal((await t.verification(real.event_id as string))!.outcome, "verified");
  assert.equal((await t.verification(wrong.event_id as string))!.outcome, "spoofed");
  assert.equal(await t.verification(fake.event_id as string), null, "the empty answer is waited on");
  const left = await pendingMessages(t.deps.kv);
  assert.deepEqual(
    left.map((m) => m.value.hits.map(([e]) => e)),
    [[fake.event_id]],
    "the marker keeps only it",
  );
  t.deps.clock.advance(EMPTY_DNS_SETTLE_MS);
  assert.deepEqual(await sweepPendingVerifications(t.app.ctx), { verified: 1, failed: 0 });
  assert.equal((await t.verification(fake.event_id as string))!.outcome, "spoofed");
  assert.equal(
    (await t.verification(real.event_id as string))!.outcome,
    "verified",
    "stored once, unchanged",
  );
  assert.equal((await pendingMessages(t.deps.kv)).length, 0);
});
