/** The group commit when KV fails: the widest merged commit within KV limits, and commits that throw. */
import assert from "node:assert/strict";
import {
  createCommitter,
  type GroupRecord,
  MAX_COMMIT_RECORDS,
  storeGroups,
} from "../../../lib/store/commit_group.ts";
import { keys } from "../../../lib/store/keys.ts";

const ORG = "org_failing";

function record(id: string, over: Partial<GroupRecord> = {}): GroupRecord {
  const at = over.receivedAt ?? 1_000;
  return {
    org: ORG,
    id,
    receivedAt: at,
    key: keys.rawEvent(ORG, "production", at, id),
    value: { id, pad: "x".repeat(600) },
    bytes: 700,
    dedupeMs: 60_000,
    ip: "192.0.2.1",
    verifyToken: null,
    outcome: null,
    ...over,
  };
}

async function rawIds(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list<{ id: string }>({ prefix: keys.rawEvents(ORG, "production") })) {
    out.push(e.value.id);
  }
  return out.sort();
}

/** A KV handle whose commits throw while `failing` is set (same store underneath). */
function flaky(kv: Deno.Kv) {
  const state = { failing: true, thrown: 0 };
  const wrapped = Object.create(kv) as Deno.Kv;
  wrapped.atomic = () => {
    const op = kv.atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      if (state.failing) {
        state.thrown++;
        return Promise.reject(new TypeError("database is locked"));
      }
      return commit();
    };
    return op;
  };
  wrapped.getMany = kv.getMany.bind(kv) as Deno.Kv["getMany"];
  return { kv: wrapped, state };
}

Deno.test("group commit: 100 one-record groups with address and pending marker merge within KV limits, each group keeping its own", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, state } = flaky(base);
  const committer = createCommitter(kv); // one per process, as createContext makes
  state.failing = false;
  const seen = { commits: 0, thrown: 0 };
  const atomic = kv.atomic;
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit;
    op.commit = async () => {
      seen.commits++;
      try {
        return await commit();
      } catch (err) {
        seen.thrown++;
        throw err;
      }
    };
    return op;
  };
  // The most mutations a record can bring: dedupe key, record, its group's address record, marker and message.
  const calls = Array.from(
    { length: MAX_COMMIT_RECORDS + 3 },
    (_, i) => [record(crypto.randomUUID(), { receivedAt: 1_000 + i, verifyToken: "GPTBot" })],
  );
  const stored = await Promise.all(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.deepEqual(stored.map((s) => s.length), calls.map(() => 1));
  for (const [r] of calls) {
    const ip = await base.get<{ ips: Record<string, string> }>(keys.ipGroup(r.receivedAt, ORG, r.id));
    assert.deepEqual(ip.value?.ips, { [r.id]: "192.0.2.1" }, "one address record per group");
    const marker = await base.get<{ hits: [string, string][] }>(keys.verifyPending(ORG, r.id));
    assert.deepEqual(marker.value?.hits, [[r.id, "GPTBot"]], "one marker per group");
  }
  assert.equal(seen.thrown, 0, "no merged commit was refused by KV");
  assert.ok(seen.commits < calls.length, `groups were merged (${seen.commits} commits)`);
  base.close();
});

Deno.test("group commit: when KV throws on every commit the call rejects (never hangs) and stores nothing", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, state } = flaky(base);
  const committer = createCommitter(kv); // one per process, as createContext makes
  const calls = [0, 1, 2, 3, 4].map((c) => Array.from({ length: 20 }, (_, i) => record(`t${c}-${i}`)));
  const settled = await Promise.allSettled(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.ok(settled.every((s) => s.status === "rejected"), "each call reports the failure");
  assert.ok(state.thrown > 0);
  assert.deepEqual(await rawIds(base), []);
  // The retry, with KV healthy again, stores every record once, each with its dedupe key.
  state.failing = false;
  const again = await Promise.all(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.equal(again.flat().length, 100);
  assert.deepEqual(await rawIds(base), calls.flat().map((r) => r.id).sort());
  for (const r of calls.flat()) {
    assert.notEqual((await base.get(keys.dedupe(ORG, r.id))).versionstamp, null);
  }
  base.close();
});

Deno.test("group commit: a merged commit that throws once sends each group down the careful path; all stored once", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, state } = flaky(base);
  const committer = createCommitter(kv); // one per process, as createContext makes
  state.failing = false;
  let throwNext = 2; // the first two commits (merged ones) throw, the careful path then succeeds
  const atomic = kv.atomic;
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit;
    op.commit = () => (throwNext-- > 0 ? Promise.reject(new TypeError("transient")) : commit());
    return op;
  };
  const calls = [0, 1, 2, 3, 4, 5].map((c) => Array.from({ length: 20 }, (_, i) => record(`f${c}-${i}`)));
  const stored = await Promise.all(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.deepEqual(stored.map((s) => s.length), calls.map(() => 20));
  assert.deepEqual(await rawIds(base), calls.flat().map((r) => r.id).sort());
  base.close();
});
