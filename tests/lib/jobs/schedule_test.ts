/** What runs when: every recurring job is registered with its schedule, and its handler does its job. */
import assert from "node:assert/strict";
import { handleQueueMessage, startJobs } from "../../../lib/jobs/schedule.ts";
import { VERIFY_KIND } from "../../../lib/store/pending_verification.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { testDeps } from "../../helpers/deps.ts";
import { createContext } from "../../../lib/context.ts";
import { ev, store } from "../query/fixtures.ts";

Deno.test("jobs: each recurring job is registered once with its schedule; the compaction job compacts", async () => {
  const deps = await testDeps();
  const jobs = new Map<string, { schedule: string; run: () => Promise<void> }>();
  startJobs(createContext(deps), (name, schedule, run) => {
    assert.ok(!jobs.has(name), `${name} registered twice`);
    jobs.set(name, { schedule, run });
  });
  assert.deepEqual(Object.fromEntries([...jobs].map(([n, j]) => [n, j.schedule])), {
    "sweep addresses older than 30 days": "17 * * * *", // hourly: addresses go within an hour of 30 days
    "sweep spent rate counters and unknown-key strikes": "19 * * * *",
    "crawler verification sweep": "* * * * *",
    "crawler IP list refresh": "41 3 * * *",
    "compact read parts": "* * * * *", // every minute
    "refresh robots files of every website": "17 */6 * * *",
    "fetch new app-store reviews": "7,37 * * * *", // every 30 minutes, each app after its backoff
    "refresh app-store listings": "23 4 * * *", // daily
  });

  await deps.kv.set(keys.org("org1"), { id: "org1" }); // compaction walks the organizations
  const old = deps.clock.now() - 10 * 60_000; // past compaction's grace
  await store(deps.kv, { events: Array.from({ length: 5 }, (_, i) => ev({ received_at: old + i })) });
  await jobs.get("compact read parts")!.run();
  const parts = await listParts(deps.kv, "org1", "production", "ev");
  assert.equal(parts.reduce((n, p) => n + p.meta.rows, 0), 5);
  await jobs.get("sweep addresses older than 30 days")!.run(); // runs against the same deps without failing

  // A counter summed under one key per window (older code) never expired; the sweep takes it, and keeps a
  // counter of the current window.
  const minute = Math.floor(deps.clock.now() / 60_000);
  await deps.kv.atomic().sum(keys.rateWindow("public", "key1", minute - 90), 3n).commit();
  await deps.kv.set(keys.rate("public", "key1", minute, "instance1"), 2);
  // Unknown-key strikes over two minutes old and blocks that ended go too (they name a hashed address).
  const now = deps.clock.now();
  await deps.kv.set(keys.unknownKeyStrike("addr1", now - 10 * 60_000, "s1"), 1);
  await deps.kv.set(keys.unknownKeyStrike("addr1", now - 30_000, "s2"), 1);
  await deps.kv.set(keys.unknownKeyBlock("addr1"), now - 1);
  await deps.kv.set(keys.unknownKeyBlock("addr2"), now + 30_000);
  await jobs.get("sweep spent rate counters and unknown-key strikes")!.run();
  const left = [];
  for await (const e of deps.kv.list({ prefix: keys.rates() })) left.push(e.key);
  assert.deepEqual(left, [keys.rate("public", "key1", minute, "instance1")]);
  const strikes = [];
  for await (const e of deps.kv.list({ prefix: keys.allUnknownKeyStrikes() })) strikes.push(e.key);
  assert.deepEqual(strikes, [keys.unknownKeyStrike("addr1", now - 30_000, "s2")]);
  const blocks = [];
  for await (const e of deps.kv.list({ prefix: keys.allUnknownKeyBlocks() })) blocks.push(e.key);
  assert.deepEqual(blocks, [keys.unknownKeyBlock("addr2")]);
  deps.kv.close();
});

Deno.test("jobs: the queue worker hands verification messages to their job and drops other kinds with a warning", async () => {
  const deps = await testDeps();
  const ctx = createContext(deps);
  await handleQueueMessage(ctx, { kind: "something else" });
  assert.equal(deps.log.lines.length, 1);
  assert.match(deps.log.lines[0], /unknown kind dropped/);
  // a message whose marker was handled already (or never written) is a quiet no-op, not a retry
  await handleQueueMessage(ctx, { kind: VERIFY_KIND, org: "org1", marker: "gone" });
  assert.equal(deps.log.lines.length, 1);
  deps.kv.close();
});
