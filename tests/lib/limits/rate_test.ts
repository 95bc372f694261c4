import assert from "node:assert/strict";
import { FakeClock } from "../../../lib/clock.ts";
import { RateLimiter, sweepRateCounters, SYNC_EVERY } from "../../../lib/limits/rate.ts";
import { keys } from "../../../lib/store/keys.ts";

Deno.test("rate: one instance admits exactly the limit per minute, then says when to retry", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:15Z"));
  const rl = new RateLimiter(kv, clock);
  let ok = 0;
  for (let i = 0; i < 130; i++) if ((await rl.take("k", "a", 100)).ok) ok++;
  assert.equal(ok, 100);
  const refused = await rl.take("k", "a", 100);
  assert.equal(refused.ok, false);
  assert.equal(refused.retryAfterS, 45);
  clock.advance(45_000);
  assert.equal((await rl.take("k", "a", 100)).ok, true);
  kv.close();
});

Deno.test("rate: instances sharing one KV hold the limit together, overshooting by at most instances × SYNC_EVERY", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const instances = [new RateLimiter(kv, clock), new RateLimiter(kv, clock), new RateLimiter(kv, clock)];
  let ok = 0;
  // Round-robin requests over the instances, as a load balancer would.
  for (let i = 0; i < 600; i++) if ((await instances[i % 3].take("k", "shared", 200)).ok) ok++;
  assert.ok(ok >= 200, `admitted ${ok}`);
  assert.ok(
    ok <= 200 + instances.length * SYNC_EVERY,
    `admitted ${ok}, bound ${200 + instances.length * SYNC_EVERY}`,
  );
  // Another key is counted apart.
  assert.equal((await instances[0].take("k", "other", 200)).ok, true);
  kv.close();
});

Deno.test("rate: concurrent requests on one instance never pass the limit together", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const rl = new RateLimiter(kv, clock);
  const first = await Promise.all(Array.from({ length: 50 }, () => rl.take("k", "burst", 5)));
  assert.equal(first.filter((d) => d.ok).length, 5);
  const big = await Promise.all(Array.from({ length: 300 }, () => rl.take("k", "burst2", 120)));
  assert.equal(big.filter((d) => d.ok).length, 120);
  kv.close();
});

Deno.test("rate: concurrent requests over several instances stay within the documented bound", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const instances = [new RateLimiter(kv, clock), new RateLimiter(kv, clock)];
  const results = await Promise.all(
    Array.from({ length: 400 }, (_, i) => instances[i % 2].take("k", "c", 50)),
  );
  const ok = results.filter((d) => d.ok).length;
  assert.ok(ok >= 50 && ok <= 50 + 2 * SYNC_EVERY, `admitted ${ok}`);
  kv.close();
});

/** A KV whose commits and reads take `delayMs` longer, counting the round trips the limiter makes. */
function slowKv(kv: Deno.Kv, delayMs: number) {
  const trips = { commits: 0, gets: 0 };
  const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  const wrapped = {
    atomic() {
      const op = kv.atomic();
      const slowOp = {
        sum(key: Deno.KvKey, n: bigint) {
          op.sum(key, n);
          return slowOp;
        },
        async commit() {
          trips.commits++;
          await pause();
          return op.commit();
        },
      };
      return slowOp;
    },
    async set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) {
      trips.commits++;
      await pause();
      return kv.set(key, value, options);
    },
    async *list<T>(selector: Deno.KvListSelector) {
      trips.gets++;
      await pause();
      yield* kv.list<T>(selector);
    },
  };
  return { kv: wrapped as unknown as Deno.Kv, trips };
}

for (const delayMs of [0, 20]) {
  Deno.test(`rate: concurrent bursts on 3 instances stay within limit + instances × SYNC_EVERY (KV +${delayMs} ms)`, async () => {
    const kv = await Deno.openKv(":memory:");
    const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
    const instances = [0, 1, 2].map(() => new RateLimiter(slowKv(kv, delayMs).kv, clock));
    const limit = 100;
    let ok = 0;
    // Three waves; in each, every instance gets 100 requests at once.
    for (let wave = 0; wave < 3; wave++) {
      const burst = instances.flatMap((rl) =>
        Array.from({ length: 100 }, () => rl.take("k", "burst", limit))
      );
      ok += (await Promise.all(burst)).filter((d) => d.ok).length;
      clock.advance(2_000);
    }
    const bound = limit + instances.length * SYNC_EVERY;
    assert.ok(ok >= limit && ok <= bound, `admitted ${ok}, bound ${bound}`);
    kv.close();
  });
}

Deno.test("rate: far from the limit, a burst costs one KV round trip per SYNC_EVERY requests, not one per request", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:00Z"));
  const slow = slowKv(kv, 5);
  const rl = new RateLimiter(slow.kv, clock);
  const results = await Promise.all(Array.from({ length: 200 }, () => rl.take("k", "far", 10_000)));
  assert.equal(results.filter((d) => d.ok).length, 200);
  // 200 / 25 = 8 folds, plus the window's first read.
  assert.ok(slow.trips.commits <= 200 / SYNC_EVERY, `commits ${slow.trips.commits}`);
  assert.ok(slow.trips.gets <= 200 / SYNC_EVERY + 1, `gets ${slow.trips.gets}`);
  kv.close();
});

Deno.test("rate: counters are one key per instance and window; an instance that forgets its window carries on from what it published", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:10Z"));
  const a = new RateLimiter(kv, clock), b = new RateLimiter(kv, clock);
  for (let i = 0; i < 30; i++) assert.equal((await a.take("k", "x", 60)).ok, true);
  for (let i = 0; i < 20; i++) assert.equal((await b.take("k", "x", 60)).ok, true);
  clock.advance(SYNC_EVERY * 1_000); // past SYNC_MS, so the next request publishes
  assert.equal((await a.take("k", "x", 60)).ok, true);
  assert.equal((await b.take("k", "x", 60)).ok, true);
  const counts: number[] = [];
  for await (
    const e of kv.list<number>({ prefix: keys.rateWindow("k", "x", Math.floor(clock.now() / 60_000)) })
  ) {
    assert.equal(e.key.length, 5);
    counts.push(e.value);
  }
  assert.deepEqual(counts.sort((x, y) => x - y), [21, 31]);
  // Fill the window map past its bound so `a` drops what it held: it must not start again from zero.
  for (let i = 0; i <= 100_001; i++) await a.take("fill", String(i), 1_000);
  let ok = 0;
  for (let i = 0; i < 20; i++) if ((await a.take("k", "x", 60)).ok) ok++;
  assert.equal(ok, 60 - 52, `admitted ${ok} more`);
  kv.close();
});

Deno.test("rate: the sweep deletes counters of windows that ended, whatever their shape, and keeps the current ones", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock(Date.parse("2026-11-20T12:00:30Z"));
  const now = Math.floor(clock.now() / 60_000);
  await kv.atomic().sum(keys.rateWindow("read", "old", now - 500), 7n).commit(); // older code's summed counter
  await kv.set(keys.rate("read", "k", now - 2, "i1"), 4);
  await kv.set(keys.rate("read", "k", now - 1, "i1"), 4); // its grace minute: kept
  await kv.set(keys.rate("read", "k", now, "i1"), 1);
  assert.equal(await sweepRateCounters(kv, clock), 2);
  const left: number[] = [];
  for await (const e of kv.list({ prefix: keys.rates() })) left.push(e.key[3] as number);
  assert.deepEqual(left, [now - 1, now]);
  kv.close();
});
