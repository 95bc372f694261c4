import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { compactAll } from "../../lib/jobs/compact.ts";
import { createEngine } from "../../lib/query/api.ts";
import { siteLines } from "../../lib/demo/site.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";

const DAY = 86_400_000;

async function setup() {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (
    body: BodyInit,
    query = `touchpoint=${t.touchpoint}&environment=production`,
    token = TEST_ADMIN_TOKEN,
  ) =>
    app.request(`/admin/v1/orgs/${t.org}/import?${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
      body,
    });
  return { deps, app, t, post };
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

Deno.test("import: good lines are stored with their own time, bad lines are listed by number and counted", async () => {
  const { deps, t, post } = await setup();
  const now = deps.clock.now();
  const at = new Date(now - 40 * DAY).toISOString(); // older than any live limit
  const event = (id: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      kind: "event",
      received_at: at,
      ip: "81.2.69.10",
      user_agent:
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      event_id: uuid(id),
      anonymous_id: "anon-1",
      session_id: "sess-1",
      sequence_no: id,
      platform: "web",
      event_type: "$pageview",
      screen: "/pricing",
      properties: { path: "/pricing", url: `https://${t.domain}/pricing` },
      device_time: at,
      ...extra,
    });
  const hit = (id: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      kind: "hit",
      event_type: "$crawl",
      event_id: uuid(1000 + id),
      timestamp: new Date(now - 20 * DAY).toISOString(), // beyond the live 7-day limit: imports take any age
      host: t.domain,
      path: "/pricing",
      status: 200,
      user_agent:
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      ip: null,
      ...extra,
    });
  const body = [
    event(1),
    event(2),
    "{not json",
    event(1), // a repeat: a duplicate, not an error
    JSON.stringify({ kind: "other" }),
    event(3, { event_id: "not-a-uuid" }),
    event(4, { received_at: "yesterday" }),
    hit(1),
    hit(2, {
      user_agent:
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36",
    }),
    hit(3, { host: "elsewhere.example" }),
    "",
    event(5, { sequence_no: 5 }),
  ].join("\n");
  const res = await post(body);
  assert.equal(res.status, 200);
  const r = await res.json();
  assert.equal(r.imported, 4);
  assert.equal(r.duplicates, 1);
  assert.equal(r.rejected_total, 6);
  assert.deepEqual(r.rejected.map((x: { line: number }) => x.line), [3, 5, 6, 7, 9, 10]);
  assert.match(r.rejected[2].error, /event_id/);
  assert.match(r.rejected[4].error, /not a crawler/);

  await compactAll(deps);
  const engine = createEngine(deps);
  const scope = { org: t.org, env: "production" as const, from: now - 60 * DAY, to: now, timezone: "UTC" };
  const ev = await engine.aggregate(scope, { metrics: ["pageviews", "visitors"], breakdown: ["country"] });
  assert.deepEqual(ev.totals, { pageviews: 3, visitors: 1 });
  const hits = await engine.hitsAggregate(scope, { metrics: ["requests"], breakdown: ["crawler"] });
  assert.deepEqual(hits.rows.map((x) => [x.key.crawler, x.metrics.requests]), [["GPTBot", 1]]);
  deps.kv.close();
});

Deno.test("import: a generated site imports whole, and a second import of it is all duplicates", async () => {
  const { deps, t, post } = await setup();
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: 300,
      hits: 30,
      days: 5,
      seed: 7,
      end: deps.clock.now(),
    }),
  ];
  const stream = () => ReadableStream.from(lines.map((l) => new TextEncoder().encode(l + "\n")));
  const first = await (await post(stream())).json();
  assert.equal(first.rejected_total, 0, JSON.stringify(first.rejected.slice(0, 3)));
  assert.equal(first.imported, 330);
  const again = await (await post(stream())).json();
  assert.deepEqual([again.imported, again.duplicates, again.rejected_total], [0, 330, 0]);
  deps.kv.close();
});

Deno.test("import: needs the admin token and a touchpoint of the organization", async () => {
  const { deps, post } = await setup();
  assert.equal((await post("", undefined, "wrong-token-0123456789")).status, 401);
  assert.equal((await post("", "touchpoint=nope&environment=production")).status, 404);
  assert.equal((await post("", "environment=production")).status, 422);
  deps.kv.close();
});

/** An NDJSON event line at `at` (epoch ms) with sequence number n. */
const eventLine = (n: number, at: number, properties: Record<string, unknown> = {}) =>
  JSON.stringify({
    kind: "event",
    received_at: at,
    event_id: uuid(n),
    anonymous_id: "anon-1",
    session_id: "sess-1",
    sequence_no: n,
    platform: "web",
    event_type: "$pageview",
    screen: "/pricing",
    properties: { path: "/pricing", ...properties },
    device_time: new Date(at).toISOString(),
  }) + "\n";

Deno.test("import: an event too large to store (two-byte text) is a rejected line; the lines around it are stored", async () => {
  const { deps, post } = await setup();
  const now = deps.clock.now();
  const res = await post(
    eventLine(1, now - 1000) + eventLine(2, now - 1000, { note: "日本語".repeat(13_334) }) +
      eventLine(3, now - 1000),
  );
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.imported, 2);
  assert.equal(body.duplicates, 0);
  assert.equal(body.rejected.length, 1);
  assert.equal(body.rejected[0].line, 2);
  assert.match(body.rejected[0].error, /^event takes \d+ bytes as stored/);
});

Deno.test("import: a batch failing to store while the body still streams answers 500; the process keeps running, a retry imports all", async () => {
  const { deps, post } = await setup();
  const now = deps.clock.now();
  const realAtomic = deps.kv.atomic.bind(deps.kv);
  let failing = true;
  deps.kv.atomic = () => {
    const op = realAtomic();
    if (failing) op.commit = () => Promise.reject(new Error("disk full"));
    return op;
  };
  const enc = new TextEncoder();
  const streamed = () =>
    new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(enc.encode(eventLine(1, now - 1000) + eventLine(2, now - 900)));
        await new Promise((r) => setTimeout(r, 200)); // the store fails before the rest arrives
        c.enqueue(enc.encode(eventLine(3, now - 800)));
        c.close();
      },
    });
  const failed = await post(streamed());
  assert.equal(failed.status, 500);
  await failed.body?.cancel();
  failing = false;
  const retry = await post(streamed());
  assert.equal(retry.status, 200);
  const body = await retry.json();
  assert.equal(body.imported + body.duplicates, 3);
  assert.equal(body.imported, 3);
});

Deno.test("import: a line's referrer attributes its event as the SDK's properties.referrer would; bad ones are rejected lines", async () => {
  const { deps, t, post } = await setup();
  const at = new Date(deps.clock.now() - 3 * DAY).toISOString();
  const line = (id: number, extra: Record<string, unknown>, props: Record<string, unknown> = {}) =>
    JSON.stringify({
      kind: "event",
      received_at: at,
      event_id: uuid(id),
      anonymous_id: `anon-${id}`,
      session_id: `sess-${id}`,
      sequence_no: 0,
      platform: "web",
      event_type: "$pageview",
      screen: "/",
      properties: { path: "/", url: `https://${t.domain}/`, ...props },
      device_time: at,
      ...extra,
    });
  const res = await post([
    line(1, { referrer: "https://www.google.com/" }),
    line(2, { referrer: "https://chatgpt.com/" }, { referrer: "https://www.example.org/post" }),
    line(3, {}),
    line(4, { referrer: 42 }),
  ].join("\n"));
  const r = await res.json();
  assert.equal(r.imported, 3);
  assert.deepEqual(r.rejected, [{ line: 4, error: "referrer: must be a URL string" }]);
  const scope = { org: t.org, env: "production" as const, from: 0, to: deps.clock.now(), timezone: "UTC" };
  const rows =
    (await createEngine(deps).aggregate(scope, { metrics: ["sessions"], breakdown: ["channel", "source"] }))
      .rows.map((x) => `${x.key.channel}/${x.key.source}:${x.metrics.sessions}`).sort();
  assert.deepEqual(rows, ["Direct/(direct):1", "Organic Search/google:1", "Referral/example.org:1"]);
  deps.kv.close();
});

Deno.test("import: the first 100 bad lines are listed, every bad line is counted", async () => {
  const { post } = await setup();
  const res = await post(Array.from({ length: 151 }, (_, i) => `{bad ${i}`).join("\n"));
  const r = await res.json();
  assert.equal(r.rejected_total, 151);
  assert.equal(r.rejected.length, 100);
  assert.deepEqual(r.rejected[99], { line: 100, error: "not a JSON object" });
  assert.equal(r.imported, 0);
});

Deno.test("compact on demand: an import is folded into parts at once, answers the same; admin only, known orgs only", async () => {
  const { deps, app, t, post } = await setup();
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: 300,
      hits: 30,
      days: 5,
      seed: 3,
      end: deps.clock.now(),
    }),
  ];
  assert.equal((await (await post(lines.join("\n"))).json()).imported, 330);
  const scope = { org: t.org, env: "production" as const, from: 0, to: deps.clock.now(), timezone: "UTC" };
  const ask = async () =>
    (await createEngine(deps).aggregate(scope, { metrics: ["events", "visitors"] })).totals;
  const before = await ask();
  const compactReq = (org: string, token = TEST_ADMIN_TOKEN) =>
    app.request(`/admin/v1/orgs/${org}/compact`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
  assert.equal((await compactReq(t.org, "wrong-token-wrong-token")).status, 401);
  assert.equal((await compactReq("no-such-org")).status, 404);
  const res = await compactReq(t.org);
  assert.equal(res.status, 200);
  const report = await res.json();
  assert.equal(report.rows, 330); // every event and hit, none younger than the cron's grace left raw
  let raw = 0;
  for await (const _ of deps.kv.list({ prefix: ["raw_ev", t.org] })) raw++;
  for await (const _ of deps.kv.list({ prefix: ["raw_hit", t.org] })) raw++;
  assert.equal(raw, 0);
  assert.deepEqual(await ask(), before);
  deps.kv.close();
});

Deno.test("import: a UUID in upper case is the same event or hit as in lower case (one form, from the schemas)", async () => {
  const { deps, t, post } = await setup();
  const now = deps.clock.now();
  const at = new Date(now - 3 * DAY).toISOString();
  const eventId = "abcdef00-0000-4000-8000-00000000abcd", hitId = "abcdef00-0000-4000-8000-00000000dcba";
  const event = (id: string) =>
    JSON.stringify({
      kind: "event",
      received_at: at,
      event_id: id,
      anonymous_id: "anon-1",
      session_id: "sess-1",
      sequence_no: 0,
      platform: "web",
      event_type: "$pageview",
      screen: "/",
      properties: { path: "/", url: `https://${t.domain}/` },
      device_time: at,
    });
  const hit = (id: string) =>
    JSON.stringify({
      kind: "hit",
      event_type: "$crawl",
      event_id: id,
      timestamp: at,
      host: t.domain,
      path: "/",
      user_agent:
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
      ip: null,
    });
  const first = await (await post([event(eventId.toUpperCase()), hit(hitId.toUpperCase())].join("\n")))
    .json();
  assert.deepEqual([first.imported, first.duplicates, first.rejected_total], [2, 0, 0]);
  const again = await (await post([event(eventId), hit(hitId)].join("\n"))).json();
  assert.deepEqual([again.imported, again.duplicates], [0, 2], "the lower-case ids are the same records");
  const stored: string[] = [];
  for await (const e of deps.kv.list({ prefix: [] })) stored.push(JSON.stringify(e.key));
  const all = stored.join("\n");
  for (const id of [eventId, hitId]) {
    assert.ok(all.includes(id), `${id} is stored in lower case`);
    assert.ok(!all.includes(id.toUpperCase()), `${id} is never stored in upper case`);
  }
  deps.kv.close();
});
