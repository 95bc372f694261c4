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
