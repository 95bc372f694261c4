import assert from "node:assert/strict";
import { hit, setup } from "../../routes/server_events_helpers.ts";
import type { FakeDns } from "../../helpers/deps.ts";
import { keys } from "../../../lib/store/keys.ts";
import {
  enqueueVerification,
  handleVerifyMessage,
  type PendingVerification,
  sweepPendingVerifications,
  VERIFY_KIND,
} from "../../../lib/jobs/verify.ts";

const AMAZONBOT_UA =
  "Mozilla/5.0 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)";

async function pendingItems(kv: Deno.Kv): Promise<PendingVerification[]> {
  return (await Array.fromAsync(kv.list<PendingVerification[]>({ prefix: keys.verifyPendingAll() })))
    .flatMap((e) => e.value);
}

Deno.test("verify job: the queue worker stores each outcome and clears the pending marker", async () => {
  const t = await setup();
  const dns = t.deps.dns as FakeDns;
  dns.ptr.set("192.0.2.10", ["a.crawl.amazonbot.amazon."]);
  dns.a.set("a.crawl.amazonbot.amazon.", ["192.0.2.10"]);
  const good = hit({ ip: "20.171.206.10" }), fake = hit({ ip: "203.0.113.9" });
  const amazon = hit({ ip: "192.0.2.10", user_agent: AMAZONBOT_UA });
  await t.send([good, fake, amazon]);
  const items = await pendingItems(t.deps.kv);
  assert.equal(items.length, 3);
  assert.ok(items.every((i) => !JSON.stringify(i).includes("192.0.2.10")), "messages carry no address");

  assert.equal(await handleVerifyMessage(t.deps, { kind: VERIFY_KIND, items }), true);
  assert.equal((await t.verification(good.event_id as string))!.outcome, "verified");
  assert.equal((await t.verification(fake.event_id as string))!.outcome, "spoofed");
  const a = (await t.verification(amazon.event_id as string))!;
  assert.equal(a.outcome, "verified");
  assert.equal(a.method, "reverse_dns");
  assert.deepEqual(await pendingItems(t.deps.kv), []);
});

Deno.test("verify job: a repeated message changes nothing; other kinds are not ours", async () => {
  const t = await setup();
  const h = hit();
  await t.send([h]);
  const items = await pendingItems(t.deps.kv);
  await handleVerifyMessage(t.deps, { kind: VERIFY_KIND, items });
  const first = await t.verification(h.event_id as string);
  t.deps.clock.advance(60_000);
  await handleVerifyMessage(t.deps, { kind: VERIFY_KIND, items });
  assert.deepEqual(await t.verification(h.event_id as string), first);
  assert.equal(await handleVerifyMessage(t.deps, { kind: "something.else" }), false);
});

Deno.test("verify job: the cron sweep verifies markers whose message was lost, leaving fresh ones to the queue", async () => {
  const t = await setup();
  const h = hit();
  await t.send([h]);
  assert.deepEqual(await sweepPendingVerifications(t.deps), { verified: 0, failed: 0 });
  assert.equal(await t.verification(h.event_id as string), null);
  t.deps.clock.advance(6 * 60_000);
  assert.deepEqual(await sweepPendingVerifications(t.deps), { verified: 1, failed: 0 });
  assert.equal((await t.verification(h.event_id as string))!.outcome, "verified");
  assert.deepEqual(await pendingItems(t.deps.kv), []);
});

Deno.test("verify job: the real KV queue delivers the work after the response", async () => {
  const t = await setup();
  t.deps.kv.listenQueue((msg) => handleVerifyMessage(t.deps, msg).then(() => {}));
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
  await enqueueVerification(t.deps, {
    org: t.tenant.org,
    eventId: withIp,
    token: "GPTBot",
    receivedAt,
    hasIp: true,
  });
  await enqueueVerification(t.deps, {
    org: t.tenant.org,
    eventId: withoutIp,
    token: "GPTBot",
    receivedAt,
    hasIp: false,
  });
  await enqueueVerification(t.deps, {
    org: t.tenant.org,
    eventId: noCheck,
    token: "unknown",
    receivedAt,
    hasIp: true,
  });
  assert.equal((await t.verification(withoutIp))!.outcome, "unverifiable");
  assert.equal((await t.verification(noCheck))!.outcome, "unverifiable");
  const items = await pendingItems(t.deps.kv);
  assert.deepEqual(items.map((i) => i.eventId), [withIp]);
  await handleVerifyMessage(t.deps, { kind: VERIFY_KIND, items });
  assert.equal((await t.verification(withIp))!.outcome, "verified");
});
