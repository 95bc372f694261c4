/**
 * Many instances: two apps, each with its own handle on one KV (as two processes on one KV_URL: a handle of
 * its own, so nothing an instance keeps per KV is shared), their crons firing together. Every scheduled job runs once per slot, the work it does is done once, and both
 * instances answer the same questions with the same JSON.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { type JobContext, JOBS, startJobs } from "../../../lib/jobs/schedule.ts";
import { FakeClock } from "../../../lib/clock.ts";
import { keys } from "../../../lib/store/keys.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { TOOLS } from "../../../tools/registry.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";
import { event } from "../../helpers/events.ts";
import { hit } from "../../routes/server_events_helpers.ts";
import { minimalInput } from "../../helpers/fuzz.ts";

type Handler = () => Promise<void>;

/** A handle of its own on the shared KV. */
const handleOn = (kv: Deno.Kv): Deno.Kv =>
  new Proxy(kv, {
    get: (target, name) => {
      const v = Reflect.get(target, name, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });

async function instance(kv: Deno.Kv, clock: FakeClock, fetched: string[]) {
  const fetch: typeof globalThis.fetch = (input) => {
    fetched.push(String(input instanceof Request ? input.url : input));
    return Promise.resolve(new Response("not here", { status: 404 }));
  };
  const deps = await testDeps({ kv: handleOn(kv), clock, fetch });
  const app = createApp(deps);
  const crons = new Map<string, Handler>();
  const runs = new Map<string, number>();
  // the real job table, each body counted where it runs
  const counted = JOBS.map((j) => ({
    ...j,
    run: async (ctx: JobContext) => {
      runs.set(j.name, (runs.get(j.name) ?? 0) + 1);
      await j.run(ctx);
    },
  }));
  startJobs(app.ctx, (name, _schedule, handler) => crons.set(name, handler), counted);
  return { deps, app, crons, runs };
}

const total = (a: Map<string, number>, b: Map<string, number>, name: string) =>
  (a.get(name) ?? 0) + (b.get(name) ?? 0);

Deno.test("two instances on one KV: every scheduled job runs once per slot, and both answer alike", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const fetched: string[] = [];
  const a = await instance(kv, clock, fetched);
  const b = await instance(kv, clock, fetched);
  const t = await createTenant(a.app, TEST_ADMIN_TOKEN, { plan: "enterprise" });

  // traffic to both: web events to one, crawler hits to the other
  const sent = await a.app.fetch(
    new Request("http://svc/v1/behavior/events", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://acme.test" },
      body: JSON.stringify({
        api_key: t.publicKey,
        batch: Array.from({ length: 20 }, (_, i) => event({ sequence_no: i, anonymous_id: `v${i % 4}` })),
      }),
    }),
    { remoteAddr: { hostname: "81.2.69.160" } },
  );
  assert.equal(sent.status, 204);
  const hits = await b.app.request("/v1/behavior/server-events", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${t.serverKey}` },
    body: JSON.stringify({ events: [hit({ ip: "203.0.113.9" }), hit({ path: "/robots.txt" })] }),
  });
  assert.equal(hits.status, 202);

  // both crons fire every job at the same moment, three minutes later (past compaction's grace)
  clock.advance(3 * 60_000);
  const fireAll = () => Promise.all(JOBS.flatMap((j) => [a.crons.get(j.name)!(), b.crons.get(j.name)!()]));
  await fireAll();
  for (const j of JOBS) assert.equal(total(a.runs, b.runs, j.name), 1, `${j.name} ran once`);
  const fetchedOnce = [...fetched];
  assert.equal(
    new Set(fetchedOnce).size,
    fetchedOnce.length,
    `nothing fetched twice: ${fetchedOnce.join(", ")}`,
  );
  assert.ok(fetchedOnce.some((u) => u.includes("robots.txt")), "the robots job did fetch");

  // what the jobs did, done once: parts hold every record once, the marker is verified once
  const parts = await listParts(a.deps.kv, t.org, "production", "ev");
  assert.equal(parts.reduce((n, p) => n + p.meta.rows, 0), 20);
  let raw = 0;
  for await (const _ of a.deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) raw++;
  assert.equal(raw, 0);

  // the same slot again (a cron firing late): nobody runs; the next minute: each minute job once more
  await fireAll();
  for (const j of JOBS) assert.equal(total(a.runs, b.runs, j.name), 1, `${j.name}: slot already run`);
  clock.advance(60_000);
  await fireAll();
  for (const j of JOBS) {
    const want = j.periodMs === 60_000 ? 2 : 1;
    assert.equal(total(a.runs, b.runs, j.name), want, `${j.name} after a minute`);
  }

  // both answer every tool with the same JSON (but the allowance counters, which each call moves on)
  const counters = new Set(["used", "left"]);
  const same = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (counters.has(k) ? undefined : v)));
  const ask = async (app: typeof a.app, tool: string) => {
    const r = await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
      body: JSON.stringify(minimalInput(TOOLS.find((x) => x.name === tool)!).input),
    });
    return { status: r.status, body: await r.json() };
  };
  for (const tool of TOOLS) {
    const [fromA, fromB] = [await ask(a.app, tool.name), await ask(b.app, tool.name)];
    if (minimalInput(tool).answers) {
      assert.equal(fromA.status, 200, `${tool.name}: ${JSON.stringify(fromA.body)}`);
    }
    assert.deepEqual(same(fromB), same(fromA), tool.name);
  }

  // a key revoked through one instance stops working on the other within its 5 s cache
  const keyId = (await (await a.app.request(`/admin/v1/orgs/${t.org}/keys`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  })).json()).keys.find((k: { kind: string }) => k.kind === "read").id;
  await a.app.request(`/admin/v1/orgs/${t.org}/keys/${keyId}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  });
  clock.advance(5_000);
  assert.equal((await ask(b.app, "account_overview")).status, 401);

  kv.close();
});
