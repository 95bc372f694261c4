import assert from "node:assert/strict";
import fc from "fast-check";
import { DedupeKeys, sortedOrder } from "../../../lib/demo/dedupe_keys.ts";
import { Rng } from "../../../lib/demo/random.ts";
import { keys } from "../../../lib/store/keys.ts";

const hex = (b: Uint8Array, i: number) =>
  Array.from(b.subarray(i * 16, i * 16 + 16), (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("dedupe keys: 16-byte keys sorted in byte order, with runs sharing their leading bytes", () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ minLength: 16, maxLength: 16 }), { maxLength: 300 }),
      fc.integer({ min: 0, max: 255 }),
      (list, lead) => {
        // half of the keys share their first 6 bytes, so the leading bits alone do not order them
        const b = new Uint8Array(list.length * 16);
        list.forEach((k, i) => {
          b.set(k, i * 16);
          if (i % 2) b.fill(lead, i * 16, i * 16 + 6);
        });
        const order = Array.from(sortedOrder(b, list.length));
        const want = Array.from(list.keys()).sort((x, y) => {
          const a = hex(b, x), c = hex(b, y);
          return a < c ? -1 : a > c ? 1 : x - y;
        });
        assert.deepEqual(order, want);
      },
    ),
  );
});

Deno.test("dedupe keys: each written as ingest writes it, uuids and other ids alike", async () => {
  const kv = await Deno.openKv(":memory:");
  const r = new Rng(3);
  const w = new DedupeKeys("o", 4); // grows past what it expected
  const want = new Map<string, number>();
  for (let i = 0; i < 1_234; i++) {
    const id = i % 97 === 5 ? `imported-${i}` : i % 101 === 7 ? r.uuid().toUpperCase() : r.uuid();
    const at = 1_790_000_000_000 + i * 1_000.25;
    w.add(id, at, i % 3 ? 35 * 86_400_000 : 8 * 86_400_000);
    want.set(id, at);
  }
  assert.equal(w.size, 1_234);
  await w.write(kv);
  assert.equal(w.size, 0);
  const got = new Map<string, number>();
  for await (const e of kv.list<number>({ prefix: ["dedupe", "o"] })) got.set(e.key[2] as string, e.value);
  assert.deepEqual(got, want);
  assert.equal((await kv.get(keys.dedupe("o", [...want.keys()][0]))).value, [...want.values()][0]);
  kv.close();
});

Deno.test("dedupe keys: over 2^21 keys, fewer leading bits beside the index, still in byte order", () => {
  const n = 2 ** 21 + 5, b = new Uint8Array(n * 16), r = new Rng(9);
  for (let i = 0; i < b.length; i += 4) {
    const x = Math.floor(r.next() * 2 ** 32);
    b[i] = x >>> 24, b[i + 1] = (x >>> 16) & 255, b[i + 2] = (x >>> 8) & 255, b[i + 3] = x & 255;
  }
  b.copyWithin(16, 0, 16); // two equal keys
  const order = sortedOrder(b, n);
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    assert.equal(seen[order[i]], 0);
    seen[order[i]] = 1;
    if (i === 0) continue;
    const x = order[i - 1] * 16, y = order[i] * 16;
    let k = 0;
    while (k < 16 && b[x + k] === b[y + k]) k++;
    if (k < 16 ? b[x + k] > b[y + k] : order[i - 1] > order[i]) assert.fail(`not in order at ${i}`);
  }
});

Deno.test("dedupe keys: commits filled up to KV's limits, for a long organization id and long ids too", async () => {
  const kv = await Deno.openKv(":memory:");
  const org = "org-" + "x".repeat(70); // 1,000 keys of this org would be over KV's 80 KiB of keys a commit
  const r = new Rng(5);
  const w = new DedupeKeys(org, 3_000);
  const want = new Set<string>();
  for (let i = 0; i < 3_000; i++) {
    const id = i % 7 === 0 ? `import-${i}-` + "y".repeat(300) : r.uuid();
    w.add(id, 1_790_000_000_000 + i, 35 * 86_400_000);
    want.add(id);
  }
  await w.write(kv);
  const got = new Set<string>();
  for await (const e of kv.list({ prefix: ["dedupe", org] })) got.add(e.key[2] as string);
  assert.deepEqual(got, want);
  kv.close();
});
