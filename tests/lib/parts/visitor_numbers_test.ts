/**
 * Visitor numbers given by many commits in flight at once (lib/parts/visitor_numbers.ts): each id gets the
 * number of its place in the claimed range, whatever order the commits land in; ids another writer numbered
 * meanwhile keep that writer's number and the rest are numbered anew, past every number given.
 */
import assert from "node:assert/strict";
import { numberVisitors, visitorCount } from "../../../lib/parts/visitor_numbers.ts";
import { keys } from "../../../lib/store/keys.ts";

const ids = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => `v${String(from + i).padStart(6, "0")}`);

Deno.test("visitor numbers: thousands of new ids numbered in their order, over many commits at once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const first = ids(0, 3_456); // 35 commits of 100: more than are in flight at once
    const got = await numberVisitors(kv, "o", "production", [...first, ...first.slice(0, 50)]);
    assert.deepEqual([...got], first.map((id, i) => [id, i]));
    assert.equal(await visitorCount(kv, "o", "production"), 3_456);
    for (const i of [0, 99, 100, 1_699, 1_700, 3_455]) {
      assert.equal((await kv.get(keys.visitorNumber("o", "production", first[i]))).value, i);
    }
    // old ids keep their numbers; new ones continue past them, in order
    const next = [...ids(3_000, 456), ...ids(3_456, 1_234)];
    const again = await numberVisitors(kv, "o", "production", next);
    for (const [i, id] of next.entries()) assert.equal(again.get(id), 3_000 + i);
    assert.equal(await visitorCount(kv, "o", "production"), 4_690);
  } finally {
    kv.close();
  }
});

Deno.test("visitor numbers: ids another writer numbered keep its numbers, the rest of their commits anew", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const all = ids(0, 2_500);
    // another writer numbers two ids, in the first and in a late commit, after the lookup: the counter
    // says nothing of them (as when it claimed its range after ours)
    const taken = new Map([[all[5], 900_000], [all[2_101], 900_001]]);
    const real = kv.atomic.bind(kv);
    let sneaked = false;
    kv.atomic = () => {
      if (!sneaked) {
        sneaked = true;
        const op = real();
        for (const [id, n] of taken) op.set(keys.visitorNumber("o", "production", id), n);
        void op.commit();
      }
      return real();
    };
    const got = await numberVisitors(kv, "o", "production", all);
    assert.equal(got.size, 2_500);
    for (const [id, n] of taken) assert.equal(got.get(id), n);
    const numbers = [...got.values()];
    assert.equal(new Set(numbers).size, 2_500, "no number given twice");
    // untouched commits keep their places in the first range
    for (const i of [100, 200, 1_999, 2_000, 2_099, 2_200, 2_499]) assert.equal(got.get(all[i]), i);
    // the two commits that met the other writer's ids were numbered anew, past the first range, in order
    const anew = [...all.slice(0, 100), ...all.slice(2_100, 2_200)].filter((id) => !taken.has(id));
    assert.deepEqual(anew.map((id) => got.get(id)), anew.map((_, i) => 2_500 + i));
    for (const [id, n] of got) {
      assert.equal((await kv.get(keys.visitorNumber("o", "production", id))).value, n);
    }
  } finally {
    kv.close();
  }
});

Deno.test("visitor numbers: a writer's known numbers read no id twice, and give what reading would give", async () => {
  const kv = await Deno.openKv(":memory:"), plain = await Deno.openKv(":memory:");
  try {
    let reads = 0;
    const getMany = kv.getMany.bind(kv);
    kv.getMany = ((ks: Deno.KvKey[]) => (reads += ks.length, getMany(ks))) as typeof kv.getMany;
    const known = { numbers: new Map<string, number>(), complete: true };
    // three parts whose visitors overlap, numbered with known numbers and by reading each time
    for (const part of [ids(0, 700), [...ids(500, 400), ...ids(0, 50)], ids(850, 300)]) {
      const got = await numberVisitors(kv, "o", "production", part, known);
      assert.deepEqual([...got], [...await numberVisitors(plain, "o", "production", part)]);
    }
    assert.equal(reads, 0, "a complete writer reads no number");
    assert.equal(known.numbers.size, 1_150);
    assert.equal(await visitorCount(kv, "o", "production"), 1_150);
    // not complete (numbers given before it began): an id is read once, the first time this writer meets it;
    // 150 of these were numbered above (their numbers are their places), 150 are new and follow them
    const later = { numbers: new Map<string, number>(), complete: false };
    await numberVisitors(kv, "o", "production", ids(1_000, 300), later);
    assert.equal(reads, 300);
    const again = await numberVisitors(kv, "o", "production", ids(1_000, 300), later);
    assert.equal(reads, 300);
    for (const [i, id] of ids(1_000, 300).entries()) {
      assert.equal(again.get(id), 1_000 + i);
    }
  } finally {
    kv.close();
    plain.close();
  }
});

Deno.test("visitor numbers: a complete writer meeting an id another writer numbered takes that writer's number", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const known = { numbers: new Map<string, number>(), complete: true };
    await numberVisitors(kv, "o", "production", ids(0, 100), known);
    // another writer numbers an id this one has not met (its claim moves the counter past it)
    await kv.atomic().set(keys.visitorNumber("o", "production", "v999999"), 100).set(
      keys.visitorCount("o", "production"),
      101,
    ).commit();
    const got = await numberVisitors(kv, "o", "production", ["v000001", "v999999", "v000200"], known);
    assert.equal(got.get("v000001"), 1);
    assert.equal(got.get("v999999"), 100, "the other writer's number, read after the commit's check failed");
    assert.ok(got.get("v000200")! > 100);
    assert.equal(new Set(got.values()).size, 3);
    assert.equal((await kv.get(keys.visitorNumber("o", "production", "v000200"))).value, got.get("v000200"));
  } finally {
    kv.close();
  }
});
