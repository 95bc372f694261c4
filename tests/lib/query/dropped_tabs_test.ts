/**
 * dropped_events with two tabs of one session (the web SDK shares the session id across tabs; each page load
 * numbers its own events from 0), through the real HTTP ingest and a real KV file, from the raw tail and
 * after the compaction job: interleaved page loads lose nothing, a real gap inside one still counts.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { compactAll } from "../../../lib/jobs/compact.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { expected, openSite } from "./rollup_site.ts";

const T0 = Date.parse("2026-11-18T10:00:00Z");
const PERIOD = "2026-11-18..2026-11-18";
const UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** The app served over HTTP on a KV file of its own; `send` posts one SDK batch, `read` asks a tool. */
async function world() {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const deps = await testDeps({ kv });
  deps.config = {
    ...deps.config,
    trustProxy: true,
    publicKeyRatePerMinute: 1e9,
    readKeyRatePerMinute: 1e9,
    kvPath: `${dir}/kv.sqlite3`,
  };
  deps.clock.set(T0);
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { plan: "enterprise" });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  /** Posts one batch, received at `receivedAt` (ms). */
  const send = async (batch: unknown[], ip: string, receivedAt: number) => {
    deps.clock.set(receivedAt);
    const res = await fetch(`${base}/v1/behavior/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: `https://${t.domain}`,
        "x-forwarded-for": ip,
        "user-agent": UA,
      },
      body: JSON.stringify({ api_key: t.publicKey, batch }),
    });
    assert.equal(res.status, 204, await res.text());
  };
  const read = async (tool: string, body: unknown) => {
    const res = await fetch(`${base}/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  };
  const compact = async () => {
    deps.clock.set(Date.parse("2026-11-24T10:00:00Z"));
    await compactAll(deps);
  };
  const close = async () => {
    await server.shutdown();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { send, read, compact, close };
}

const event = (over: Record<string, unknown>) => ({
  event_id: crypto.randomUUID(),
  platform: "web",
  event_type: "$pageview",
  ...over,
});

Deno.test("dropped events: two tabs of one session lose no events; a gap inside one tab's page load still counts", async () => {
  const w = await world();
  try {
    const e = (session: string, n: number, s: number, type = "$autocapture", path = "/a") =>
      event({
        anonymous_id: `anon-${session}`,
        session_id: session,
        sequence_no: n,
        device_time: at(s),
        event_type: type,
        screen: path,
        properties: { path, url: `https://acme.test${path}` },
      });
    for (const session of ["tabs", "gap"]) {
      // tab A: pageview and 5 clicks; tab B opened from it: 3 events; back in tab A
      const tabA = [e(session, 0, 0, "$pageview"), ...[1, 2, 3, 4, 5].map((n) => e(session, n, n))];
      const tabB = [
        e(session, 0, 6, "$pageview", "/b"),
        e(session, 1, 7, "$autocapture", "/b"),
        e(session, 2, 8),
      ];
      // the second session lost tab A's event 7
      const back = session === "tabs"
        ? [e(session, 6, 10), e(session, 7, 12, "$pageleave")]
        : [e(session, 6, 10), e(session, 8, 12, "$pageleave")];
      await w.send(tabA, "81.2.69.20", T0 + 6_000);
      await w.send(tabB, "81.2.69.20", T0 + 9_000);
      await w.send(back, "81.2.69.20", T0 + 13_000);
    }
    for (const label of ["raw", "compacted"]) {
      if (label === "compacted") await w.compact();
      const o = await w.read("behavior_overview", { period: PERIOD });
      assert.equal(o.data_quality.dropped_events.value, 1, `${label}: ${JSON.stringify(o.data_quality)}`);
    }
  } finally {
    await w.close();
  }
});

Deno.test("dropped events: two tabs' events split across an hour's end are counted from the rollups as from the events", async () => {
  const start = Date.parse("2026-11-20T10:59:50Z");
  const site = await openSite(Date.parse("2026-11-21T12:00:00Z"), { file: true });
  try {
    const events: StoredEvent[] = [];
    for (const session of ["tabs", "gap"]) {
      const e = (n: number, s: number, path = "/a") =>
        ev({
          anonymous_id: `anon-${session}`,
          session_id: session,
          sequence_no: n,
          received_at: start + s * 1000,
          event_type: n === 0 ? "$pageview" : "$autocapture",
          path,
        });
      // tab A before 11:00, tab B and back in tab A after it: the session's facts are two hours' segments
      events.push(...[0, 1, 2, 3, 4, 5].map((n) => e(n, n)));
      events.push(e(0, 16, "/b"), e(1, 17, "/b"), e(2, 18, "/b"));
      events.push(e(6, 20), e(session === "tabs" ? 7 : 8, 22));
    }
    await site.add(events);
    await site.compact();
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: Date.parse("2026-11-20T00:00:00Z"),
      to: Date.parse("2026-11-21T00:00:00Z"),
      timezone: "UTC",
    };
    const opts: AggregateOptions = { metrics: ["sessions", "dropped_events"] };
    const [got] = await site.rollups().answer(scope, [opts]);
    assert.ok(got, "answered from the rollups");
    const want = expected(site, scope, opts);
    assert.deepEqual(got, want);
    assert.equal(want.totals.dropped_events, 1, JSON.stringify(want));
  } finally {
    await site.close();
  }
});
