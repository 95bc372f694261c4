/**
 * Questions over a large raw tail (records not compacted yet): the tail is read once for a question's loads
 * and its batch built once while it stays the same (issue 32: a tool over 10k raw hits took 1.7 s, each of
 * its loads building the tail again), and building it gives the event loop turns, so /healthz is answered
 * meanwhile. Ordering is observed through the KV calls the read makes, not through timing.
 */
import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { generateSite } from "../../../lib/demo/site.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { event } from "../../helpers/events.ts";
import { createTenant } from "../../helpers/tenant.ts";

/** KV that reports each list call (the first part of its start or prefix) and when a listing ran out. */
function watchedKv(kv: Deno.Kv, on: { list?: (what: string) => void; listed?: (what: string) => void }) {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, opts?: Deno.KvListOptions) => {
          const what = String(("prefix" in sel ? sel.prefix : sel.start)?.[0]);
          on.list?.(what);
          const it = target.list(sel, opts);
          return {
            get cursor() {
              return it.cursor;
            },
            async *[Symbol.asyncIterator]() {
              for await (const e of it) yield e;
              on.listed?.(what);
            },
          };
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

async function world(on: Parameters<typeof watchedKv>[1] = {}) {
  const inner = await Deno.openKv(":memory:");
  const deps = await testDeps({ kv: watchedKv(inner, on) });
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { domain: "acme.test", plan: "enterprise" });
  return { deps, app, t, inner };
}

Deno.test("raw tail: a question's loads share one read, questions in a row reuse its batch, a new event makes a new one", async () => {
  const lists: string[] = [];
  const { deps, app, t, inner } = await world({ list: (w) => lists.push(w) });
  const send = async (n: number, from: number) => {
    const res = await app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({
          api_key: t.publicKey,
          batch: Array.from({ length: n }, (_, i) => event({ sequence_no: from + i })),
        }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } },
    );
    assert.equal(res.status, 204);
  };
  await send(5, 0);
  const source = new Source(deps);
  const now = deps.clock.now(), day = 86_400_000;
  lists.length = 0;
  const [a, b, c] = await Promise.all([
    source.events(t.org, "production", now - 7 * day, now + 1),
    source.events(t.org, "production", now - 90 * day, now + 1),
    source.events(t.org, "production", now - day, now + 1),
  ]);
  assert.equal(lists.filter((w) => w === "raw_ev").length, 1, "one read of the raw tail for three loads");
  for (const l of [a, b, c]) assert.equal(l.rawRows, 5);
  const tailOf = (l: typeof a) => l.batches[l.parts];
  assert.equal(tailOf(a).b, tailOf(b).b, "one batch built");
  const again = await source.events(t.org, "production", now - 7 * day, now + 1);
  assert.equal(tailOf(again).b, tailOf(a).b, "the same tail: the same batch");
  assert.notEqual(tailOf(again).scopeMasks, tailOf(a).scopeMasks, "each question masks the tail itself");

  await send(1, 5);
  const after = await source.events(t.org, "production", now - 7 * day, now + 1);
  assert.equal(after.rawRows, 6);
  assert.notEqual(tailOf(after).b, tailOf(a).b, "a new event: a new batch");
  // through the app: every question sees the event just stored
  const ask = async () => {
    const res = await app.request("/v1/read/behavior_events", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
      body: '{"period":"last_7_days"}',
    });
    assert.equal(res.status, 200);
    return JSON.stringify(await res.json());
  };
  const first = await ask();
  assert.equal(await ask(), first);
  await send(1, 6);
  assert.notEqual(await ask(), first, "the answer moves with the tail");
  inner.close();
});

Deno.test("raw tail: while a question builds a large tail's batch, /healthz is answered before the read touches KV again", async () => {
  const order: string[] = [];
  let listing = false;
  const { deps, app, t, inner } = await world({
    list: (w) => listing && w === "part" && order.push("read: parts listed again"),
    listed: (w) => listing && w === "raw_ev" && order.push("read: raw tail listed"),
  });
  await generateSite(deps, {
    org: t.org,
    touchpoint: t.touchpoint,
    host: "acme.test",
    events: 12_000,
    hits: 0,
    days: 5,
    seed: 3,
    compact: false,
  });
  listing = true;
  let done = false;
  const read = Promise.resolve(app.request("/v1/read/behavior_paths", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${t.readKey}` },
    body: '{"period":"last_7_days","page":"/"}',
  })).then(async (res) => {
    done = true;
    return { status: res.status, body: await res.json() };
  });
  // health checks one after another from the moment the tail has been listed until the answer
  while (!order.includes("read: raw tail listed") && !done) await new Promise((r) => setTimeout(r, 0));
  while (!done) {
    const res = await app.request("/healthz");
    assert.equal(res.status, 200);
    await res.body?.cancel();
    order.push("healthz answered");
  }
  const answer = await read;
  assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
  const listed = order.indexOf("read: raw tail listed");
  const next = order.indexOf("read: parts listed again", listed);
  assert.ok(listed >= 0 && next > listed, order.join("\n"));
  const between = order.slice(listed, next).filter((x) => x === "healthz answered").length;
  assert.ok(between >= 1, `no /healthz answered while the tail's batch was built:\n${order.join("\n")}`);
  inner.close();
});
