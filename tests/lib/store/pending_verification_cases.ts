/**
 * Whether a process asks its store's queue is the context's fact (createContext's `verifyQueue`), not a
 * module's: a store that refused queues is not asked again by that process, and KV_QUEUE=off stops asking.
 */
import assert from "node:assert/strict";
import { createContext } from "../../../lib/context.ts";
import { nudgeVerification, useNoQueue } from "../../../lib/store/pending_verification.ts";
import { testDeps } from "../../helpers/deps.ts";
import { kvWithoutQueues } from "../../helpers/no_queue_kv.ts";

const settled = () => new Promise((r) => setTimeout(r, 0));

Deno.test("verify queue: a store that refused is not asked again by this context; another context learns it on its own", async () => {
  const kv = kvWithoutQueues(await Deno.openKv(":memory:"));
  const deps = await testDeps({ kv });
  const a = createContext(deps), b = createContext(deps);
  assert.equal(a.committer.queue, a.verifyQueue, "the committer nudges through the context's queue");
  nudgeVerification(a.verifyQueue, "org1", "m1");
  await settled();
  assert.equal(kv.refused, 1);
  assert.equal(a.verifyQueue.off, true);
  nudgeVerification(a.verifyQueue, "org1", "m2");
  await settled();
  assert.equal(kv.refused, 1, "asked once only");
  assert.equal(b.verifyQueue.off, false, "nothing kept per store outside a context");
  nudgeVerification(b.verifyQueue, "org1", "m3");
  await settled();
  assert.equal(kv.refused, 2);
  kv.close();
});

Deno.test("verify queue: told not to (KV_QUEUE=off), the context never asks", async () => {
  const kv = kvWithoutQueues(await Deno.openKv(":memory:"));
  const ctx = createContext(await testDeps({ kv }));
  useNoQueue(ctx.verifyQueue);
  nudgeVerification(ctx.verifyQueue, "org1", "m1");
  await settled();
  assert.equal(kv.refused, 0);
  kv.close();
});
