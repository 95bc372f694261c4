/**
 * An event time without a timezone is refused with a message saying the timezone is missing and what form is
 * expected, through the real ingest endpoint; other bad times say what form is expected.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { BehaviorEvent } from "../../../lib/schemas/events.ts";
import { CrawlEvent } from "../../../lib/schemas/server_events.ts";

Deno.test("events: a device_time without a timezone is a 422 that says the timezone is missing", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  try {
    const res = await app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({
          api_key: t.publicKey,
          batch: [event({ device_time: "2026-11-20T12:00:00" })],
        }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
    assert.equal(res.status, 422);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.match(body.error, /device_time/);
    assert.match(body.error, /no timezone/);
    assert.match(body.error, /Z \(UTC\) or an offset such as \+01:00/);
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("event times: each refused form says what is expected; times with a zone pass", () => {
  const message = (device_time: string) => {
    const r = BehaviorEvent.safeParse(event({ device_time }));
    return r.success ? null : r.error.issues[0].message;
  };
  for (const t of ["2026-11-20T12:00", "2026-11-20T12:00:00.123", "2026-11-20 12:00:00"]) {
    assert.match(message(t) ?? "", /has no timezone/, t);
  }
  for (const t of ["yesterday", "2026-11-20", "2026-13-40T12:00:00Z"]) {
    assert.match(
      message(t) ?? "",
      /must be an ISO 8601 date-time with a timezone .* as in 2026-11-20T12:00:00Z/,
      t,
    );
  }
  for (const t of ["2026-11-20T12:00:00Z", "2026-11-20T12:00:00.5+01:00"]) assert.equal(message(t), null, t);
  const hit = CrawlEvent.safeParse({
    event_type: "$crawl",
    event_id: crypto.randomUUID(),
    timestamp: "2026-11-20T12:00:00",
    host: "acme.test",
    path: "/",
    user_agent: "GPTBot",
  });
  assert.ok(!hit.success);
  assert.match(hit.error.issues[0].message, /has no timezone/);
});
