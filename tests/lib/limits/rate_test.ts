import assert from "node:assert/strict";
import { FakeClock } from "../../../lib/clock.ts";
import { RateLimiter, SYNC_EVERY } from "../../../lib/limits/rate.ts";

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
