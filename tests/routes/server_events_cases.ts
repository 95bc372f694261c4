import assert from "node:assert/strict";
import { hit, setup } from "./server_events_helpers.ts";
import { UNKNOWN_KEY_LIMIT } from "../../lib/ingest/server_access.ts";
import { keys } from "../../lib/store/keys.ts";
import type { Touchpoint } from "../../lib/store/records.ts";

const errorOf = async (res: Response) => {
  const body = await res.json();
  assert.equal(typeof body.error, "string");
  assert.ok(!Number.isNaN(Date.parse(body.timestamp)));
  return body.code as string;
};

Deno.test("server-events: a valid batch is accepted with 202 and counts", async () => {
  const t = await setup();
  const res = await t.post(t.tenant.serverKey, { events: [hit(), hit()] });
  assert.equal(res.status, 202);
  assert.deepEqual(await res.json(), {
    accepted: 2,
    duplicates: 0,
    rejected: { invalid: 0, unknown_host: 0, not_crawler: 0 },
  });
  assert.equal((await t.storedHits()).length, 2);
});

Deno.test("server-events: missing, malformed and unknown server keys are 401", async () => {
  const t = await setup();
  for (const key of [null, "nonsense", "svc_sk_prod_" + "x".repeat(30)]) {
    const res = await t.post(key, { events: [hit()] });
    assert.equal(res.status, 401, String(key));
    assert.equal(await errorOf(res), "UNAUTHORIZED");
  }
});

Deno.test("server-events: a public write key (or a read key) sent here is 401", async () => {
  const t = await setup();
  for (const key of [t.tenant.publicKey, t.tenant.readKey]) {
    const res = await t.post(key, { events: [hit()] });
    assert.equal(res.status, 401);
    assert.equal(await errorOf(res), "UNAUTHORIZED");
  }
});

Deno.test("server-events: a revoked key is 403, told apart from an unknown one", async () => {
  const t = await setup();
  const made = await t.admin("POST", `/orgs/${t.tenant.org}/keys`, {
    kind: "server",
    environment: "production",
    touchpoint: t.tenant.touchpoint,
  });
  assert.equal((await t.post(made.key, { events: [hit()] })).status, 202);
  await t.admin("DELETE", `/orgs/${t.tenant.org}/keys/${made.id}`);
  const res = await t.post(made.key, { events: [hit()] });
  assert.equal(res.status, 403);
  assert.equal(await errorOf(res), "FORBIDDEN");
});

Deno.test("server-events: a key of a turned-off environment is 401", async () => {
  const t = await setup();
  await t.admin("PATCH", `/orgs/${t.tenant.org}/touchpoints/${t.tenant.touchpoint}`, {
    environments: { production: { enabled: false } },
  });
  const res = await t.post(t.tenant.serverKey, { events: [hit()] });
  assert.equal(res.status, 401);
  assert.equal(await errorOf(res), "UNAUTHORIZED");
});

Deno.test("server-events: a key of an archived touchpoint is 403", async () => {
  const t = await setup();
  await t.admin("PATCH", `/orgs/${t.tenant.org}/touchpoints/${t.tenant.touchpoint}`, { archived: true });
  const res = await t.post(t.tenant.serverKey, { events: [hit()] });
  assert.equal(res.status, 403);
  assert.equal(await errorOf(res), "FORBIDDEN");
});

Deno.test("server-events: a server key of a touchpoint that is not a website is 403", async () => {
  const t = await setup();
  // the admin API makes server keys only for websites; a touchpoint record changed under the key still refuses
  const k = keys.touchpoint(t.tenant.org, t.tenant.touchpoint);
  const tp = (await t.deps.kv.get<Touchpoint>(k)).value!;
  await t.deps.kv.set(k, { ...tp, kind: "ios" });
  t.app.ctx.directory.invalidate();
  const res = await t.post(t.tenant.serverKey, { events: [hit()] });
  assert.equal(res.status, 403);
  assert.equal(await errorOf(res), "FORBIDDEN");
});

Deno.test("server-events: any Origin header is 403", async () => {
  const t = await setup();
  const res = await t.post(t.tenant.serverKey, { events: [hit()] }, { origin: "https://acme.test" });
  assert.equal(res.status, 403);
  assert.equal(await errorOf(res), "FORBIDDEN");
  assert.equal((await t.storedHits()).length, 0);
});

Deno.test("server-events: more than 500 events is 413", async () => {
  const t = await setup();
  const res = await t.post(t.tenant.serverKey, { events: Array.from({ length: 501 }, () => hit()) });
  assert.equal(res.status, 413);
  assert.equal((await t.storedHits()).length, 0);
});

Deno.test("server-events: a Content-Length over 1 MB is 413", async () => {
  const t = await setup();
  const res = await t.post(t.tenant.serverKey, "{}", { "content-length": String(2 * 1024 * 1024) });
  assert.equal(res.status, 413);
});

Deno.test("server-events: a streamed body over 1 MB is 413 without Content-Length", async () => {
  const t = await setup();
  let sent = 0;
  const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      // an endless body: the reader must stop at the limit
      sent += chunk.byteLength;
      c.enqueue(chunk);
    },
  });
  const res = await t.app.request("/v1/behavior/server-events", {
    method: "POST",
    headers: { authorization: `Bearer ${t.tenant.serverKey}`, "content-type": "application/json" },
    body,
  });
  assert.equal(res.status, 413);
  assert.ok(sent < 4 * 1024 * 1024, `read ${sent} bytes`);
});

Deno.test("server-events: a bad envelope is 422; a bad single event never is", async () => {
  const t = await setup();
  for (
    const body of [
      "not json",
      "[]",
      "null",
      JSON.stringify({}),
      JSON.stringify({ events: [] }),
      JSON.stringify({ events: {} }),
    ]
  ) {
    const res = await t.post(t.tenant.serverKey, body);
    assert.equal(res.status, 422, body);
    assert.equal(await errorOf(res), "VALIDATION_ERROR");
  }
  const res = await t.post(t.tenant.serverKey, { events: [{ nonsense: true }, 42, null] });
  assert.equal(res.status, 202);
  assert.equal((await res.json()).rejected.invalid, 3);
});

Deno.test("server-events: over the per-minute key rate is 429 with Retry-After", async () => {
  const t = await setup();
  t.deps.config.serverKeyRatePerMinute = 3;
  for (let i = 0; i < 3; i++) {
    assert.equal((await t.post(t.tenant.serverKey, { events: [hit()] })).status, 202);
  }
  const res = await t.post(t.tenant.serverKey, { events: [hit()] });
  assert.equal(res.status, 429);
  assert.equal(await errorOf(res), "RATE_LIMIT_EXCEEDED");
  assert.ok(Number(res.headers.get("retry-after")) >= 1);
  t.deps.clock.advance(60_000);
  assert.equal((await t.post(t.tenant.serverKey, { events: [hit()] })).status, 202);
});

Deno.test("server-events: an address that sends too many unknown keys is blocked for a minute", async () => {
  const t = await setup();
  t.deps.config.trustProxy = true;
  const from = { "x-forwarded-for": "198.51.100.7" };
  const unknown = () => "svc_sk_prod_" + crypto.randomUUID().replaceAll("-", "");
  for (let i = 0; i < UNKNOWN_KEY_LIMIT; i++) {
    assert.equal((await t.post(unknown(), { events: [hit()] }, from)).status, 401);
  }
  // now even a good key from that address waits
  const blocked = await t.post(t.tenant.serverKey, { events: [hit()] }, from);
  assert.equal(blocked.status, 429);
  assert.equal(Number(blocked.headers.get("retry-after")), 60);
  // other addresses are not affected
  assert.equal(
    (await t.post(t.tenant.serverKey, { events: [hit()] }, { "x-forwarded-for": "198.51.100.8" })).status,
    202,
  );
  t.deps.clock.advance(59_000);
  assert.equal(
    (await t.post(t.tenant.serverKey, { events: [hit()] }, from)).status,
    429,
    "still within the minute",
  );
  t.deps.clock.advance(2_000);
  assert.equal((await t.post(t.tenant.serverKey, { events: [hit()] }, from)).status, 202, "a minute later");
});

Deno.test("server-events: unknown keys sent concurrently from one address all count toward the block", async () => {
  const t = await setup();
  t.deps.config.trustProxy = true;
  const from = { "x-forwarded-for": "198.51.100.9" };
  const unknown = () => "svc_sk_prod_" + crypto.randomUUID().replaceAll("-", "");
  const answers = await Promise.all(
    Array.from({ length: UNKNOWN_KEY_LIMIT * 2 }, () => t.post(unknown(), { events: [hit()] }, from)),
  );
  assert.ok(answers.every((r) => r.status === 401 || r.status === 429));
  assert.equal((await t.post(t.tenant.serverKey, { events: [hit()] }, from)).status, 429);
});

Deno.test("server-events: an unexpected failure is 500 OPERATION_FAILED", async () => {
  const t = await setup();
  // the store the app's objects were built on (its committer holds it) fails every commit
  const kv = t.deps.kv as Deno.Kv & { atomic: Deno.Kv["atomic"] };
  kv.atomic = () => {
    throw new Error("storage down");
  };
  try {
    const res = await t.post(t.tenant.serverKey, { events: [hit()] });
    assert.equal(res.status, 500);
    assert.equal(await errorOf(res), "OPERATION_FAILED");
  } finally {
    delete (kv as { atomic?: unknown }).atomic; // the prototype's again
  }
});

Deno.test("server-events: crawler addresses are stored in one canonical form; unspecified ones are dropped, the hit kept", async () => {
  const t = await setup();
  const mapped = hit({ ip: "::ffff:66.249.66.1" });
  const zoned = hit({ ip: "2001:DB8:0:0:0:0:0:7" });
  const unspecified = hit({ ip: "::" });
  const res = await t.post(t.tenant.serverKey, { events: [mapped, zoned, unspecified] });
  assert.equal((await res.json()).accepted, 3);
  const byId = new Map((await t.storedHits()).map((h) => [h.id, h]));
  assert.equal(await t.addressOf(byId.get(mapped.event_id as string)!), "66.249.66.1");
  assert.equal(await t.addressOf(byId.get(zoned.event_id as string)!), "2001:db8::7");
  assert.equal(await t.addressOf(byId.get(unspecified.event_id as string)!), null);
});
