/**
 * The web SDK's queue against the real service (its HTTP handler on a real KV file): properties a caller
 * may pass by mistake (a bigint, a cycle, a Date, too many keys) never stop the good events around them,
 * and a stored queue too old for the service's dedupe window is not sent again.
 */
import assert from "node:assert/strict";
import { cut, eventName, MAX_KEY, overLimits } from "../../../sdk/web/src/limits.ts";
import { maskDeep } from "../../../sdk/web/src/mask.ts";
import { EventQueue, STALE_MS, STORE_PREFIX, type WireEvent } from "../../../sdk/web/src/queue.ts";
import { memoryStore, type Store } from "../../../sdk/web/src/storage.ts";
import { openSite } from "../../helpers/site.ts";

const START = Date.parse("2026-11-18T10:00:00Z");

async function service() {
  const s = await openSite({ now: START });
  /** How many events the service accepted (its dedupe entries: one per event id). */
  const accepted = (org = s.t.org) => s.count(["dedupe", org]);
  return { ...s, accepted };
}

type Service = Awaited<ReturnType<typeof service>>;

/** A queue whose requests go to the service's handler; timers run when `drain` is called. */
function queueOf(
  s: Service,
  store: Store = memoryStore(),
  warnings: string[] = [],
  beacon?: (url: string, body: string) => boolean,
) {
  let timers: Array<() => void> = [];
  const inFlight = new Set<Promise<unknown>>();
  const q = new EventQueue({
    endpoint: "https://collect.test/v1/behavior/events",
    apiKey: s.t.publicKey,
    loadId: crypto.randomUUID(),
    batchSize: 20,
  }, {
    fetch: (_url, init) => {
      const res = Promise.resolve(s.app.request("/v1/behavior/events", {
        ...init,
        headers: { ...(init.headers as Record<string, string>), origin: "https://acme.test" },
      }));
      inFlight.add(res);
      res.finally(() => inFlight.delete(res));
      return res;
    },
    beacon,
    store,
    now: () => s.deps.clock.now(),
    setTimer: (fn) => timers.push(fn),
    clearTimer: () => {},
    random: () => 0.5,
    warn: (m) => warnings.push(m),
  });
  /** Runs due timers until none is left and no request is in flight (each answer may schedule a send). */
  const drain = async () => {
    for (let i = 0; i < 50 && (timers.length || inFlight.size); i++) {
      const due = timers;
      timers = [];
      for (const fn of due) fn();
      await Promise.all([...inFlight]);
      await new Promise((r) => setTimeout(r, 0));
    }
  };
  return { q, drain, warnings };
}

let seq = 0;
/** An event as the client builds it: the caller's properties go through maskDeep. */
function tracked(props: Record<string, unknown> = {}, at = START): WireEvent {
  return {
    event_id: crypto.randomUUID(),
    anonymous_id: "anon-1",
    user_id: null,
    session_id: "sess-1",
    sequence_no: seq++,
    platform: "web",
    event_type: "purchase",
    screen: "/",
    properties: maskDeep({ path: "/", url: "https://acme.test/", ...props }),
    device_time: new Date(at).toISOString(),
  };
}

Deno.test("web-sdk: a bigint, a cycle, a Date or a throwing toJSON in properties is sent as JSON the service takes", async () => {
  const s = await service();
  try {
    const cycle: Record<string, unknown> = { name: "order" };
    cycle.self = { back: cycle };
    const odd = [
      { amount: 10n },
      { order: cycle },
      { at: new Date(START), fn: () => 1, sym: Symbol("x") },
      {
        bad: {
          toJSON: () => {
            throw new Error("no");
          },
        },
        lone: "a\uD800b",
        inf: Infinity,
      },
    ];
    const { q, drain } = queueOf(s);
    for (let i = 0; i < 3; i++) q.add(tracked());
    for (const props of odd) q.add(tracked(props)); // before: JSON.stringify threw here, into the caller
    for (let i = 0; i < 3; i++) q.add(tracked());
    await q.flush();
    await drain();
    assert.equal(q.events.length, 0);
    assert.equal(await s.accepted(), 10, "all ten events are stored");
    const copy = maskDeep({ amount: 10n, order: cycle, at: new Date(START), fn: () => 1 });
    assert.deepEqual(JSON.parse(JSON.stringify(copy)), {
      amount: "10",
      order: { name: "order", self: { back: null } },
      at: "2026-11-18T10:00:00.000Z",
    });
  } finally {
    await s.close();
  }
});

Deno.test("web-sdk: a 422 naming one event drops only that event; the good ones beside it are stored", async () => {
  const s = await service();
  try {
    const { q, drain, warnings } = queueOf(s);
    const big: Record<string, number> = {};
    for (let i = 0; i < 1001; i++) big[`k${i}`] = i;
    for (let i = 0; i < 5; i++) q.add(tracked());
    q.add(tracked(big)); // the service refuses this one: batch[5].properties holds more than 1000 keys
    for (let i = 0; i < 5; i++) q.add(tracked());
    await q.flush();
    await drain();
    assert.equal(q.events.length, 0);
    assert.equal(await s.accepted(), 10, "the ten good events are stored");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /HTTP 422/);
  } finally {
    await s.close();
  }
});

Deno.test("web-sdk: a stored queue older than 7 days is not sent again at the next page load", async () => {
  const s = await service();
  try {
    const store = memoryStore();
    const old = [tracked({}, START), tracked({}, START)];
    const first = queueOf(s, store);
    for (const e of old) first.q.add(e);
    await first.q.flush(); // stored by the service; pretend the answer never reached the page
    assert.equal(await s.accepted(), 2);
    store.set(`${STORE_PREFIX}closed-load`, JSON.stringify({ t: START, closed: true, events: old }));
    // 40 days later: the service's dedupe keys (35 days) are gone
    s.deps.clock.set(START + 40 * 86_400_000);
    for await (const e of s.deps.kv.list({ prefix: ["dedupe"] })) await s.deps.kv.delete(e.key);
    const fresh = tracked({}, s.deps.clock.now() - STALE_MS / 2);
    store.set(`${STORE_PREFIX}other-load`, JSON.stringify({ t: START, closed: true, events: [fresh] }));
    const later = queueOf(s, store);
    later.q.adoptStored();
    await later.drain();
    assert.equal(later.q.events.length, 0);
    assert.equal(await s.accepted(), 1, "only the 3-day-old event is sent; the 40-day-old ones are dropped");
    assert.deepEqual(store.keys().filter((k) => k.startsWith(STORE_PREFIX)), []);
  } finally {
    await s.close();
  }
});

Deno.test("web-sdk: what the SDK queues the service takes, also by the page's last beacon (which cannot read a 422)", async () => {
  const s = await service();
  try {
    const stored: number[] = [];
    // the page's last batch: a beacon the browser accepts, sent to the service; its answer is not seen
    const beaconed: Promise<Response>[] = [];
    const { q } = queueOf(s, memoryStore(), [], (_url, body) => {
      beaconed.push(Promise.resolve(s.app.request("/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body,
      })));
      return true;
    });
    const names = ["clicked\nBuy now", "a\u2028b", "rtl\u202eevil", "tab\tname", "  spaced  "];
    let refused = 0;
    for (const [k, raw] of names.entries()) {
      const tally = { keys: 0, strings: 0, longestKey: 0 };
      const e = tracked();
      e.event_type = eventName(raw);
      const long = k === 0 ? { ["n".repeat(MAX_KEY + 1)]: 1 } : { ["n".repeat(MAX_KEY)]: 1 };
      e.properties = maskDeep({ path: "/", url: "https://acme.test/", ...long }, tally);
      if (overLimits(tally, JSON.stringify([e.properties]))) {
        refused++; // the client drops it with a warning instead of queueing it
        continue;
      }
      q.add(e);
    }
    assert.equal(refused, 1, "only the event with a 201-character property name is held back");
    for (let i = 0; i < 3; i++) q.add(tracked());
    q.flushBeacon(true);
    const answers = await Promise.all(beaconed);
    for (const a of answers) stored.push(a.status);
    assert.deepEqual(stored, [204]);
    assert.equal(await s.accepted(), 7, "four cleaned names and three pageviews are stored");
    assert.deepEqual(names.map(eventName), ["clicked Buy now", "a b", "rtl evil", "tab name", "spaced"]);
    // a cut at 120 characters never leaves half an emoji, which the service refuses as a lone surrogate
    const emoji = eventName("x".repeat(119) + "\u{1F600}tail");
    assert.equal(emoji, "x".repeat(119));
    assert.ok(emoji.isWellFormed());
    assert.equal(cut("ab\u{1F600}", 4), "ab\u{1F600}");
  } finally {
    await s.close();
  }
});
