import assert from "node:assert/strict";
import {
  createCommitter,
  type GroupRecord,
  IN_FLIGHT,
  MAX_COMMIT_RECORDS,
  storeGroups,
} from "../../../lib/store/commit_group.ts";
import { keys } from "../../../lib/store/keys.ts";

const ORG = "org_group";

function record(id: string, at = 1_000): GroupRecord {
  return {
    org: ORG,
    id,
    receivedAt: at,
    key: keys.rawEvent(ORG, "production", at, id),
    value: { id },
    bytes: 600,
    dedupeMs: 60_000,
    ip: "192.0.2.1",
    verifyToken: null,
    outcome: null,
  };
}

/** A KV handle that counts the commits made through it (same store underneath). */
function counting(kv: Deno.Kv) {
  const stats = { commits: 0, failed: 0 };
  const wrapped = Object.create(kv) as Deno.Kv;
  wrapped.atomic = () => {
    const op = kv.atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      stats.commits++;
      const r = await commit();
      if (!r.ok) stats.failed++;
      return r;
    };
    return op;
  };
  return { kv: wrapped, stats };
}

async function storedIds(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list<{ id: string }>({ prefix: keys.rawEvents(ORG, "production") })) {
    out.push(e.value.id);
  }
  return out.sort();
}

Deno.test("group commit: concurrent groups go together in fewer commits, each record stored once", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, stats } = counting(base);
  const committer = createCommitter(kv); // one per process, as createContext makes
  const calls = Array.from(
    { length: 8 },
    (_, c) => Array.from({ length: 20 }, (_, i) => record(`c${c}-${i}`)),
  );
  const stored = await Promise.all(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.deepEqual(stored.map((s) => s.length), calls.map(() => 20));
  assert.deepEqual(await storedIds(base), calls.flat().map((r) => r.id).sort());
  // 8 groups of 20: the first IN_FLIGHT commit alone, the others wait and go together (100 records at most).
  const expected = IN_FLIGHT + Math.ceil((8 - IN_FLIGHT) * 20 / MAX_COMMIT_RECORDS);
  assert.equal(stats.commits, expected, `expected merged commits, saw ${stats.commits}`);
  assert.equal(stats.failed, 0);
  for (const r of calls.flat()) {
    assert.notEqual(
      (await base.get(keys.dedupe(ORG, r.id))).versionstamp,
      null,
      "every record has its dedupe key",
    );
  }
  base.close();
});

Deno.test("group commit: a retried group merged with new ones stores only what is new", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = createCommitter(kv); // one per process, as createContext makes
  const first = Array.from({ length: 10 }, (_, i) => record(`old-${i}`));
  assert.equal((await storeGroups(committer, first, 25)).length, 10);
  // The retry (5 old + 5 new) and two fresh groups arrive together: the merged commit fails on the retry's
  // dedupe checks; each group then goes on its own.
  const retry = [...first.slice(0, 5), ...Array.from({ length: 5 }, (_, i) => record(`new-${i}`, 2_000))];
  const fresh = [0, 1].map((g) => Array.from({ length: 10 }, (_, i) => record(`g${g}-${i}`, 3_000)));
  const [a, b, c] = await Promise.all([retry, ...fresh].map((rs) => storeGroups(committer, rs, 25)));
  assert.deepEqual(a.map((r) => r.id).sort(), retry.slice(5).map((r) => r.id).sort());
  assert.equal(b.length, 10);
  assert.equal(c.length, 10);
  const ids = await storedIds(kv);
  assert.equal(ids.length, 35);
  assert.equal(new Set(ids).size, 35, "no record stored twice");
  kv.close();
});

Deno.test("group commit: identical groups sent at once are never merged together and store once", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = createCommitter(kv); // one per process, as createContext makes
  const same = Array.from({ length: 15 }, (_, i) => record(`dup-${i}`));
  const results = await Promise.all(
    Array.from(
      { length: 6 },
      (_, k) =>
        storeGroups(
          committer,
          same.map((r) => ({
            ...r,
            receivedAt: 1_000 + k,
            key: keys.rawEvent(ORG, "production", 1_000 + k, r.id),
          })),
          25,
        ),
    ),
  );
  assert.equal(results.reduce((n, r) => n + r.length, 0), 15, "each id stored by exactly one call");
  const ids = await storedIds(kv);
  assert.deepEqual(ids, same.map((r) => r.id).sort());
  kv.close();
});

Deno.test("group commit: a commit never holds more records than KV's check limit", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, stats } = counting(base);
  const committer = createCommitter(kv); // one per process, as createContext makes
  const calls = Array.from(
    { length: 12 },
    (_, c) => Array.from({ length: 25 }, (_, i) => record(`m${c}-${i}`)),
  );
  const stored = await Promise.all(calls.map((rs) => storeGroups(committer, rs, 25)));
  assert.equal(stored.flat().length, 300);
  assert.equal(stats.failed, 0, "no commit was refused for its size");
  assert.ok(stats.commits >= Math.ceil(300 / MAX_COMMIT_RECORDS));
  base.close();
});
