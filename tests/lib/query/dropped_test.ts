/**
 * Dropped events across batches: ingest sees gaps inside one batch only, so a whole lost batch is found
 * by the engine over all of a session's stored events, raw or compacted.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { createEngine, type Scope } from "../../../lib/query/api.ts";
import { keys } from "../../../lib/store/keys.ts";
import { unpackEvent } from "../../../lib/store/event_codec.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { event } from "../../helpers/events.ts";
import { createTenant } from "../../helpers/tenant.ts";

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  /** One SDK batch of a session: events with these numbers, a second apart from `at`, arriving later. */
  const send = async (session: string, seqs: number[], at: number, label: string, arrival = at + 60_000) => {
    deps.clock.set(arrival);
    const batch = seqs.map((n, k) =>
      event({
        anonymous_id: `anon-${session}`,
        session_id: session,
        sequence_no: n,
        event_type: "click",
        device_time: new Date(at + k * 1000).toISOString(),
        properties: { path: "/", url: "https://acme.test/", case: label },
      })
    );
    const res = await app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: t.publicKey, batch }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } } as unknown as Deno.ServeHandlerInfo,
    );
    assert.equal(res.status, 204);
  };
  const scope: Scope = {
    org: t.org,
    env: "production",
    from: Date.parse("2026-11-20T00:00:00Z"),
    to: Date.parse("2026-11-21T00:00:00Z"),
    timezone: "UTC",
  };
  /** dropped_events per case (each case is one session), and in total. */
  const dropped = async () => {
    const a = await createEngine(deps).aggregate(scope, {
      metrics: ["dropped_events", "sessions"],
      breakdown: ["prop:case"],
      sort: { by: "key" },
    });
    return {
      total: a.totals.dropped_events,
      ...Object.fromEntries(a.rows.map((r) => [r.key["prop:case"], r.metrics.dropped_events])),
    };
  };
  const compactNow = () => {
    deps.clock.advance(1); // rows strictly older than now
    return compact(deps, t.org, "production", "ev", { graceMs: 0 });
  };
  return { deps, t, send, dropped, compactNow };
}

const T0 = Date.parse("2026-11-20T10:00:00Z");
const MIN = 60_000;

Deno.test("dropped_events: a lost batch between two batches of a page load counts its events, raw or compacted", async () => {
  const { deps, t, send, dropped, compactNow } = await setup();
  try {
    await send("lost", [0, 1, 2, 3, 4], T0, "lost");
    await send("resend", [0, 1, 2], T0, "resend");
    await send("reload", [0, 1, 2], T0, "reload");
    await compactNow(); // the first batches in parts, the second ones raw
    await send("lost", [10, 11, 12, 13, 14], T0 + MIN, "lost"); // 5-9 never arrived
    await send("resend", [2, 3], T0 + MIN, "resend"); // 2 again (a retry), then 3
    await send("reload", [0, 1], T0 + MIN, "reload"); // a new page load
    const want = { total: 5, lost: 5, resend: 0, reload: 0 };
    // ingest saw no gap: each batch has consecutive numbers
    const stored: StoredEvent[] = [];
    for await (const e of deps.kv.list<StoredEvent>({ prefix: keys.rawEvents(t.org, "production") })) {
      stored.push(unpackEvent(e.value));
    }
    assert.equal(stored.length, 9, "the second batches are the raw tail");
    assert.ok(stored.every((e) => e.gap_before === 0));
    assert.deepEqual(await dropped(), want, "parts and raw tail");
    await compactNow();
    assert.deepEqual(await dropped(), want, "all compacted");
  } finally {
    deps.kv.close();
  }
});

Deno.test("dropped_events: batches arriving out of order are ordered by device time, all raw", async () => {
  const { deps, send, dropped } = await setup();
  try {
    // the later batch arrives first (a retry queue), and a gap of 2 inside the first batch
    await send("late", [6, 7], T0 + MIN, "late", T0 + 2 * MIN);
    await send("late", [0, 1, 4], T0, "late", T0 + 3 * MIN);
    assert.deepEqual(await dropped(), { total: 3, late: 3 });
  } finally {
    deps.kv.close();
  }
});
