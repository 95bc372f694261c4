/**
 * A burst spread over several instances (a load balancer in front of Deno Deploy's isolates) against one key
 * of a small limit: the read key's 60 calls a minute, an account's 10 sign-in attempts. Each instance may
 * hold only a few admissions the others cannot see yet (a twentieth of the limit, at least one), so the
 * whole stays within the limit plus (instances − 1) × that allowance; with a fixed 25, 8 instances admitted
 * 200 of 200 calls against 60.
 */
import assert from "node:assert/strict";
import { RateLimiter, unpublishedAllowance } from "../../../lib/limits/rate.ts";
import { FakeClock } from "../../../lib/clock.ts";

async function burst(instances: number, limit: number, calls = 200): Promise<number> {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const clock = new FakeClock();
  clock.set(Date.parse("2026-11-20T12:00:00.100Z"));
  try {
    const limiters = [...Array(instances)].map(() => new RateLimiter(kv, clock));
    const decisions = await Promise.all(
      [...Array(calls)].map((_, i) => limiters[i % instances].take("read", "key_1", limit)),
    );
    return decisions.filter((d) => d.ok).length;
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("rate limits: a burst over 1, 2, 4 and 8 instances stays within a small limit plus its margin", async () => {
  for (const limit of [60, 10]) {
    for (const instances of [1, 2, 4, 8]) {
      const admitted = await burst(instances, limit);
      const bound = limit + (instances - 1) * unpublishedAllowance(limit);
      assert.ok(admitted >= limit, `${instances} instances, limit ${limit}: only ${admitted} admitted`);
      assert.ok(
        admitted <= bound,
        `${instances} instances, limit ${limit}: ${admitted} admitted, bound ${bound}`,
      );
      if (instances === 1) assert.equal(admitted, limit);
    }
  }
  assert.equal(unpublishedAllowance(60), 3);
  assert.equal(unpublishedAllowance(10), 1);
  assert.equal(unpublishedAllowance(3_000), 25);
});
