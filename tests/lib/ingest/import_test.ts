import assert from "node:assert/strict";
import { createApp } from "../../../app.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredHit } from "../../../lib/store/records.ts";
import { siteLines } from "../../../lib/demo/site.ts";
import { IMPORT_DEDUPE_MS } from "../../../lib/ingest/import.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../../helpers/deps.ts";
import { createTenant } from "../../helpers/tenant.ts";

const DAY = 86_400_000;

async function setup(kv?: Deno.Kv) {
  const deps = await testDeps(kv ? { kv } : {});
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const post = (body: BodyInit) =>
    app.request(`/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body,
    });
  return { deps, t, post };
}

const eventLines = (
  t: { org: string; touchpoint: string; domain: string },
  end: number,
  events: number,
) => [
  ...siteLines({
    org: t.org,
    touchpoint: t.touchpoint,
    host: t.domain,
    events,
    hits: 0,
    days: 2,
    seed: 5,
    end,
  }),
];

Deno.test("import: a body that fails midway answers 500 (never hangs); the lines read before it are stored", async () => {
  await failsMidway(false);
});

Deno.test("import: a body that fails midway, with slow commits, answers 500 only once the 30 lines read are stored", async () => {
  // before, the 500 came while commits still ran (and the lines not yet handed to one were dropped): stored 0
  await failsMidway(true);
});

async function failsMidway(slow: boolean) {
  const deps0 = await testDeps();
  const { deps, t, post } = await setup(slow ? slowCommits(deps0.kv, 30) : deps0.kv);
  const lines = eventLines(t, deps.clock.now(), 50);
  const enc = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent === 30) return c.error(new Error("connection reset"));
      c.enqueue(enc.encode(lines[sent++] + "\n"));
    },
  });
  const res = await post(body);
  assert.equal(res.status, 500);
  await res.body?.cancel();
  let stored = 0;
  for await (const _ of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) stored++;
  assert.equal(stored, 30, "every line read before the failure");
  deps.kv.close();
}

/** A KV whose commits take a few milliseconds more, so reading could run far ahead of storing. */
function slowCommits(kv: Deno.Kv, ms: number): Deno.Kv {
  const wrap = <T extends object>(target: T, slow: (o: T, name: PropertyKey) => unknown): T => {
    const proxy: T = new Proxy(target, {
      get(o, name) {
        const replaced = slow(o, name);
        if (replaced !== undefined) return replaced;
        const v = Reflect.get(o, name);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          const r = v.apply(o, args);
          return r === o ? proxy : r; // keep chained calls (op.check().set()) on the proxy
        };
      },
    });
    return proxy;
  };
  return wrap(
    kv,
    (k, name) =>
      name === "atomic"
        ? () =>
          wrap(k.atomic(), (op, name) =>
            name === "commit"
              ? async () => {
                await new Promise((r) => setTimeout(r, ms));
                return op.commit();
              }
              : undefined)
        : undefined,
  );
}

Deno.test("import: lines are stored while the body streams, never more than a bounded number read ahead", async () => {
  const deps0 = await testDeps();
  const { deps, t, post } = await setup(slowCommits(deps0.kv, 5));
  const lines = eventLines(t, deps.clock.now(), 6000);
  const enc = new TextEncoder();
  const storedNow = async () => {
    let n = 0;
    for await (const _ of deps.kv.list({ prefix: keys.rawEvents(t.org, "production") })) n++;
    return n;
  };
  let sent = 0, pulls = 0, maxAhead = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (++pulls % 10 === 0) maxAhead = Math.max(maxAhead, sent - await storedNow());
      if (sent >= lines.length) return c.close();
      c.enqueue(enc.encode(lines.slice(sent, sent += 100).join("\n") + "\n"));
    },
  }, { highWaterMark: 0 });
  const res = await post(body);
  const answer = await res.json();
  assert.equal(answer.imported, lines.length);
  // held at most: the events in flight (400), an open arrival group (200) and the chunk being split (100)
  assert.ok(maxAhead > 0 && maxAhead <= 800, `read ahead of storage: ${maxAhead} lines`);
  assert.equal(await storedNow(), lines.length);
  deps.kv.close();
});

Deno.test("import: a line over 1 MiB is a rejected line even when it arrives in one chunk; the next line imports", async () => {
  const { deps, t, post } = await setup();
  const [first, second] = eventLines(t, deps.clock.now(), 2);
  const long = `{"kind":"event","pad":"${"x".repeat(1_100_000)}"}`;
  const res = await post([first, long, second].join("\n"));
  const answer = await res.json();
  assert.deepEqual(answer.rejected, [{ line: 2, error: "line is longer than 1048576 bytes" }]);
  assert.equal(answer.imported, 2);
  deps.kv.close();
});

Deno.test("import: crawler hits of a 30-day history, in no time order, all import with their own timestamps", async () => {
  const deps = await testDeps();
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  const end = deps.clock.now();
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: 40,
      hits: 400,
      days: 30,
      seed: 3,
      end,
    }),
  ].filter((l) => l.includes('"kind":"hit"'));
  const sent = new Map(lines.map((l) => JSON.parse(l)).map((h) => [h.event_id, Date.parse(h.timestamp)]));
  const times = [...sent.values()];
  // the case that matters: hits more than 7 days apart, and not in time order
  assert.ok(Math.max(...times) - Math.min(...times) > 20 * DAY);
  assert.ok(times.some((x, i) => i > 0 && x < times[i - 1]));

  const res = await app.request(
    `/admin/v1/orgs/${t.org}/import?touchpoint=${t.touchpoint}&environment=production`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/x-ndjson" },
      body: lines.join("\n"),
    },
  );
  const answer = await res.json();
  assert.equal(answer.rejected_total, 0, JSON.stringify(answer.rejected.slice(0, 3)));
  assert.equal(answer.imported, lines.length);
  const stored = new Map<string, number>();
  for await (const e of deps.kv.list<StoredHit>({ prefix: keys.rawHits(t.org, "production") })) {
    stored.set(e.value.id, e.value.timestamp);
  }
  assert.deepEqual(stored, sent);
  deps.kv.close();
});

/** A KV that notes the expiry each dedupe key is written with (KV's own expiry runs on the wall clock). */
function noteDedupeExpiry(kv: Deno.Kv, expiries: number[]): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop !== "atomic") {
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      }
      return () => {
        const op = target.atomic();
        const noted: Deno.AtomicOperation = new Proxy(op, {
          get(o, p) {
            const v = Reflect.get(o, p, o);
            if (typeof v !== "function") return v;
            return (...args: unknown[]) => {
              if (p === "set" && (args[0] as Deno.KvKey)[0] === keys.dedupe("", "")[0]) {
                expiries.push((args[2] as { expireIn?: number } | undefined)?.expireIn ?? Infinity);
              }
              const r = v.apply(o, args);
              return r === o ? noted : r;
            };
          },
        });
        return noted;
      };
    },
  });
}

Deno.test("import: an imported record's dedupe key lives 35 days from the import, hits as much as events, so a repeat weeks later stores nothing twice", async () => {
  const expiries: number[] = [];
  const real = await Deno.openKv(":memory:");
  const { deps, t, post } = await setup(noteDedupeExpiry(real, expiries));
  const lines = [
    ...siteLines({
      org: t.org,
      touchpoint: t.touchpoint,
      host: t.domain,
      events: 30,
      hits: 30,
      days: 20,
      seed: 7,
      end: deps.clock.now(),
    }),
  ];
  const hits = lines.filter((l) => l.includes('"kind":"hit"')).length;
  assert.ok(hits > 0 && hits < lines.length, "both kinds");
  const first = await (await post(lines.join("\n"))).json();
  assert.equal(first.imported, lines.length);
  assert.equal(expiries.length, lines.length);
  assert.deepEqual([...new Set(expiries)], [IMPORT_DEDUPE_MS]);
  assert.equal(IMPORT_DEDUPE_MS, 35 * DAY);
  const again = await (await post(lines.join("\n"))).json();
  assert.deepEqual([again.imported, again.duplicates], [0, lines.length]);
  deps.kv.close();
});
