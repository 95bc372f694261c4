import assert from "node:assert/strict";
import { EventQueue, type QueueEnv, STORE_PREFIX, type WireEvent } from "../../../sdk/web/src/queue.ts";
import { memoryStore, type Store } from "../../../sdk/web/src/storage.ts";

const ENDPOINT = "https://collect.test/v1/behavior/events";
const KEY = "svc_pk_test_12345678";

function event(n: number): WireEvent {
  return {
    event_id: crypto.randomUUID(),
    anonymous_id: "a",
    user_id: null,
    session_id: "s",
    sequence_no: n,
    platform: "web",
    event_type: "$pageview",
    screen: "/",
    properties: { path: "/", url: "https://site.test/" },
    device_time: new Date(0).toISOString(),
  };
}

/** Browsers' limit for a keepalive fetch's or a beacon's body, in UTF-8 bytes. */
const BROWSER_LIMIT = 65_536;
const utf8 = (s: string) => new TextEncoder().encode(s).length;

/** A queue over fake time, fake timers and a scripted service. */
function harness(
  opts: { responses?: Array<number | [number, Record<string, string>]>; store?: Store; batchSize?: number } =
    {},
) {
  let now = 1_000_000;
  const timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let nextId = 0;
  const requests: Array<{ body: { api_key: string; batch: WireEvent[] }; init: RequestInit }> = [];
  const beacons: Array<{ api_key: string; batch: WireEvent[] }> = [];
  const warnings: string[] = [];
  const responses = [...(opts.responses ?? [])];
  const store = opts.store ?? memoryStore();
  const env: QueueEnv = {
    fetch: (url, init) => {
      assert.equal(url, ENDPOINT);
      // as browsers do: a keepalive body past 64 KiB of UTF-8 is refused before it is sent
      if (init.keepalive && utf8(init.body as string) > BROWSER_LIMIT) {
        return Promise.reject(new TypeError("keepalive body too large"));
      }
      requests.push({ body: JSON.parse(init.body as string), init });
      const r = responses.shift() ?? 204;
      const [status, headers] = Array.isArray(r) ? r : [r, {}];
      if (status === 0) return Promise.reject(new TypeError("network down"));
      return Promise.resolve(new Response(status === 204 ? null : "{}", { status, headers }));
    },
    beacon: (url, body) => {
      assert.equal(url, ENDPOINT);
      if (utf8(body) > BROWSER_LIMIT) return false; // the beacon quota counts bytes too
      beacons.push(JSON.parse(body));
      return true;
    },
    store,
    now: () => now,
    setTimer: (fn, ms) => {
      timers.push({ at: now + ms, fn, id: ++nextId });
      return nextId;
    },
    clearTimer: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    random: () => 0.5,
    warn: (m) => warnings.push(m),
  };
  const q = new EventQueue(
    { endpoint: ENDPOINT, apiKey: KEY, loadId: "load-1", batchSize: opts.batchSize ?? 3, flushMs: 1000 },
    env,
  );
  /** Advances fake time, firing due timers and letting their requests settle. */
  async function advance(ms: number) {
    const end = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const t = timers[0];
      if (!t || t.at > end) break;
      timers.shift();
      now = Math.max(now, t.at);
      t.fn();
      for (let i = 0; i < 5; i++) await Promise.resolve();
      await new Promise((r) => setTimeout(r, 0));
    }
    now = end;
  }
  return {
    q,
    requests,
    beacons,
    warnings,
    store,
    advance,
    timers,
    get now() {
      return now;
    },
  };
}

Deno.test("web-sdk queue: a full batch is sent at once, a partial one after the flush interval", async () => {
  const h = harness();
  for (let i = 0; i < 3; i++) h.q.add(event(i));
  await h.advance(0);
  assert.equal(h.requests.length, 1);
  assert.equal(h.requests[0].body.batch.length, 3);
  assert.deepEqual(Object.keys(h.requests[0].body).sort(), ["api_key", "batch"]);
  assert.equal(h.requests[0].init.keepalive, true);
  assert.equal(h.requests[0].init.credentials, "omit");
  h.q.add(event(3));
  await h.advance(999);
  assert.equal(h.requests.length, 1);
  await h.advance(1);
  assert.equal(h.requests.length, 2);
  assert.equal(h.q.events.length, 0);
});

Deno.test("web-sdk queue: 429 waits for Retry-After and resends the same event ids", async () => {
  const h = harness({ responses: [[429, { "retry-after": "7" }], 204] });
  for (let i = 0; i < 3; i++) h.q.add(event(i));
  await h.advance(0);
  assert.equal(h.requests.length, 1);
  assert.equal(h.q.events.length, 3, "events stay queued after 429");
  await h.advance(6_900);
  assert.equal(h.requests.length, 1, "no retry before Retry-After");
  await h.advance(200);
  assert.equal(h.requests.length, 2);
  const ids = (i: number) => h.requests[i].body.batch.map((e) => e.event_id);
  assert.deepEqual(ids(1), ids(0));
  assert.equal(h.q.events.length, 0);
});

Deno.test("web-sdk queue: 500 and network errors back off exponentially and keep the events", async () => {
  const h = harness({ responses: [500, 0, 503, 204] });
  for (let i = 0; i < 3; i++) h.q.add(event(i));
  await h.advance(0);
  await h.advance(999);
  assert.equal(h.requests.length, 1, "first retry after ~1 s");
  await h.advance(1);
  assert.equal(h.requests.length, 2);
  await h.advance(1999);
  assert.equal(h.requests.length, 2, "second retry after ~2 s");
  await h.advance(1);
  assert.equal(h.requests.length, 3);
  await h.advance(4000);
  assert.equal(h.requests.length, 4);
  assert.equal(h.q.events.length, 0);
  assert.equal(
    new Set(h.requests.map((r) => JSON.stringify(r.body))).size,
    1,
    "every try sends the same body",
  );
});

for (const status of [401, 403, 422]) {
  Deno.test(`web-sdk queue: ${status} drops the batch and warns only once`, async () => {
    const h = harness({ responses: [status, status] });
    for (let i = 0; i < 6; i++) h.q.add(event(i));
    await h.advance(0);
    await h.advance(0);
    assert.equal(h.requests.length, 2);
    assert.equal(h.q.events.length, 0);
    assert.equal(h.warnings.length, 1);
    assert.match(h.warnings[0], new RegExp(String(status)));
  });
}

Deno.test("web-sdk queue: the queue is bounded and the oldest events go first", () => {
  const q2 = new EventQueue(
    { endpoint: ENDPOINT, apiKey: KEY, loadId: "b", batchSize: 200, flushMs: 60_000, maxQueue: 5 },
    {
      fetch: () => new Promise(() => {}),
      store: memoryStore(),
      now: () => 0,
      setTimer: () => 0,
      clearTimer: () => {},
      random: () => 0,
      warn: () => {},
    },
  );
  for (let i = 0; i < 8; i++) q2.add(event(i));
  assert.deepEqual(q2.events.map((e) => e.sequence_no), [3, 4, 5, 6, 7]);
});

Deno.test("web-sdk queue: on page hide the rest goes by beacon as application/json, once", async () => {
  const h = harness();
  h.q.add(event(0));
  h.q.add(event(1));
  h.q.flushBeacon(true);
  assert.equal(h.beacons.length, 1);
  assert.deepEqual(h.beacons[0].batch.map((e) => e.sequence_no), [0, 1]);
  assert.equal(h.beacons[0].api_key, KEY);
  assert.equal(h.q.events.length, 0);
  await h.advance(5000);
  assert.equal(h.requests.length, 0, "beaconed events are not sent again");
  assert.deepEqual(h.store.keys(), []);
});

Deno.test("web-sdk queue: unsent events survive a page load and keep their ids", async () => {
  const store = memoryStore();
  const first = harness({ store, responses: [[429, { "retry-after": "30" }]] });
  for (let i = 0; i < 3; i++) first.q.add(event(i));
  const ids = first.q.events.map((e) => e.event_id);
  await first.advance(0);
  first.q.flushBeacon(true); // still waiting out the 429: nothing beaconed, stored for the next load
  assert.equal(first.beacons.length, 0);
  assert.ok(store.keys().some((k) => k.startsWith(STORE_PREFIX)));
  const next = harness({ store });
  // A fresh page load: its own load id.
  const q = new EventQueue({ endpoint: ENDPOINT, apiKey: KEY, loadId: "load-2", batchSize: 3 }, {
    fetch: (_u, init) => {
      next.requests.push({ body: JSON.parse(init.body as string), init });
      return Promise.resolve(new Response(null, { status: 204 }));
    },
    store,
    now: () => next.now,
    setTimer: (fn) => (fn(), 0),
    clearTimer: () => {},
    random: () => 0,
    warn: () => {},
  });
  q.adoptStored();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(next.requests.length, 1);
  assert.deepEqual(next.requests[0].body.batch.map((e) => e.event_id), ids);
  assert.deepEqual(store.keys(), []);
});

Deno.test("web-sdk queue: another open tab's stored queue is left alone", () => {
  const store = memoryStore();
  store.set(STORE_PREFIX + "other", JSON.stringify({ t: 0, closed: false, events: [event(0)] }));
  const q = new EventQueue({ endpoint: ENDPOINT, apiKey: KEY, loadId: "mine" }, {
    fetch: () => new Promise(() => {}),
    store,
    now: () => 1000,
    setTimer: () => 0,
    clearTimer: () => {},
    random: () => 0,
    warn: () => {},
  });
  q.adoptStored();
  assert.equal(q.events.length, 0);
  assert.ok(store.get(STORE_PREFIX + "other"));
});

Deno.test("web-sdk queue: a page that hid after pagehide still hands its queue to the next page load", async () => {
  const store = memoryStore();
  const first = harness({ store, responses: [[503, { "retry-after": "30" }]] });
  first.q.add(event(0));
  await first.advance(3000); // 503: waiting 30 s to retry
  first.q.flushBeacon(true); // pagehide
  first.q.flushBeacon(false); // then visibilitychange to hidden
  const next = new EventQueue({ endpoint: ENDPOINT, apiKey: KEY, loadId: "load-2" }, {
    fetch: () => new Promise(() => {}),
    store,
    now: () => first.now,
    setTimer: () => 0,
    clearTimer: () => {},
    random: () => 0,
    warn: () => {},
  });
  next.adoptStored();
  assert.equal(next.events.length, 1);
});

/** An event whose properties hold `chars` copies of a character. */
function wide(n: number, char: string, chars: number): WireEvent {
  return { ...event(n), event_type: "viewed_product", properties: { description: char.repeat(chars) } };
}

Deno.test("web-sdk queue: a batch over 64 KiB of UTF-8 (Cyrillic text) goes as a plain fetch, not keepalive", async () => {
  const h = harness();
  // 3 events of 12,000 Cyrillic letters: ~36,000 UTF-16 units, ~72,000 bytes
  for (let i = 0; i < 3; i++) h.q.add(wide(i, "Ж", 12_000));
  await h.advance(0);
  assert.equal(
    h.requests.length,
    1,
    "the browser would refuse it as keepalive and it would be retried forever",
  );
  assert.equal(h.requests[0].init.keepalive, false);
  assert.equal(h.q.events.length, 0);
  h.q.add(event(3));
  await h.advance(1000);
  assert.equal(h.requests[1].init.keepalive, true, "a small batch still survives the page going away");
});

Deno.test("web-sdk queue: on page hide, beacons are cut by UTF-8 bytes and one too large waits for a fetch", () => {
  const h = harness();
  h.q.add(event(0));
  for (let i = 1; i <= 4; i++) h.q.add(wide(i, "漢", 9_000)); // ~27 KB each in UTF-8
  h.q.add(wide(5, "漢", 25_000)); // ~75 KB: no beacon can carry it
  h.q.add(event(6));
  h.q.flushBeacon(true);
  const beaconed = h.beacons.flatMap((b) => b.batch.map((e) => e.sequence_no));
  assert.deepEqual(beaconed, [0, 1, 2, 3, 4, 6], "the events after the large one are not held back");
  assert.ok(h.beacons.length > 1, "cut into several beacons");
  for (const b of h.beacons) assert.ok(utf8(JSON.stringify(b)) <= BROWSER_LIMIT);
  assert.deepEqual(h.q.events.map((e) => e.sequence_no), [5], "the large one is kept for a fetch, not lost");
  const stored = h.store.keys().map((k) => JSON.parse(h.store.get(k)!).events.length);
  assert.deepEqual(stored, [1]);
});

Deno.test("web-sdk queue: a batch is cut below the service's 1 MB a request (20 events of Cyrillic text)", async () => {
  const h = harness({ batchSize: 20 });
  for (let i = 0; i < 20; i++) h.q.add(wide(i, "Ж", 29_500)); // ~59 KB each in UTF-8: 1.18 MB in all
  await h.advance(0);
  await h.advance(1000);
  const sizes = h.requests.map((r) => utf8(JSON.stringify(r.body)));
  assert.ok(sizes.length >= 2 && sizes.every((n) => n <= 900_000), `request sizes ${sizes}`);
  assert.equal(h.requests.flatMap((r) => r.body.batch).length, 20, "every event sent once");
  assert.equal(h.q.events.length, 0);
});
