/**
 * No queue needed: on a KV that refuses queues as KV Connect does, ingest stores crawler hits and automated
 * web visitors with their pending markers, and the minute's sweep (the registered job) verifies them.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { JOBS, listenToQueue } from "../../../lib/jobs/schedule.ts";
import { SWEEP_MIN_AGE_MS } from "../../../lib/jobs/verify.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { VerificationRecord } from "../../../lib/store/records.ts";
import { type FakeDns, TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { kvWithoutQueues } from "../../helpers/no_queue_kv.ts";
import { GPTBOT_UA, hit } from "../../routes/server_events_helpers.ts";

const AMAZONBOT_UA =
  "Mozilla/5.0 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)";

Deno.test("no queues: on a KV that refuses enqueue (KV Connect), ingest stores and the minute's sweep verifies within 2 minutes", async () => {
  const kv = kvWithoutQueues(await Deno.openKv(":memory:"));
  const deps = await testDeps({ kv });
  const dns = deps.dns as FakeDns;
  dns.ptr.set("192.0.2.10", ["a.crawl.amazonbot.amazon."]);
  dns.a.set("a.crawl.amazonbot.amazon.", ["192.0.2.10"]);
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  listenToQueue(app.ctx); // refused: logged, nothing else
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(deps.log.lines.some((l) => l.includes("no KV queue here")), deps.log.lines.join("\n"));

  const spoofed = hit({ ip: "203.0.113.9" }), amazon = hit({ ip: "192.0.2.10", user_agent: AMAZONBOT_UA });
  const res = await app.request("/v1/behavior/server-events", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${t.serverKey}` },
    body: JSON.stringify({ events: [spoofed, amazon, hit()] }),
  });
  const answer = await res.json();
  assert.equal(res.status, 202, JSON.stringify(answer));
  assert.equal(answer.accepted, 3);
  // an automated visitor through the web SDK waits for the same check
  const visitor = event({ context: { user_agent: GPTBOT_UA } });
  const web = await app.fetch(
    new Request("http://svc/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({ api_key: t.publicKey, batch: [visitor] }),
    }),
    { remoteAddr: { hostname: "203.0.113.50" } },
  );
  assert.equal(web.status, 204, await web.text());
  assert.ok(kv.refused >= 1, "ingest asked the queue (a speed-up), was refused, and stored anyway");

  const outcome = async (id: unknown) =>
    (await kv.get<VerificationRecord>(keys.verification(t.org, String(id)))).value?.outcome ?? null;
  const pending = async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: keys.verifyPendingAll() })) n++;
    return n;
  };
  assert.equal(await pending(), 2);
  const sweep = JOBS.find((j) => j.name === "crawler verification sweep")!;
  assert.equal(sweep.schedule, "* * * * *");
  await sweep.run(app.ctx); // too fresh yet: a queue, where there is one, may still take them
  assert.equal(await pending(), 2);
  // the next minute's sweep takes every marker older than SWEEP_MIN_AGE_MS: verified within ~90 s
  assert.ok(SWEEP_MIN_AGE_MS + 60_000 <= 2 * 60_000);
  deps.clock.advance(SWEEP_MIN_AGE_MS);
  await sweep.run(app.ctx);
  assert.equal(await pending(), 0);
  assert.equal(await outcome(spoofed.event_id), "spoofed");
  assert.equal(await outcome(amazon.event_id), "verified");
  assert.equal(await outcome(visitor.event_id), "spoofed");
  kv.close();
});
