/**
 * `readSections` (rollup/store.ts) reads a part's wanted chunks that lie near each other in key order with one
 * list over their range (KV pays per key range: a cold overview at 10M events read 3,411 chunks ten a
 * `getMany`), lets go of the unwanted chunks the range holds, and still answers each section's bytes exactly:
 * sections of several chunks, a section asked twice, one the entry does not list (null), one whose chunk went
 * (undefined), a stray key inside a range, and parts far apart read by `getMany`.
 */
import assert from "node:assert/strict";
import { CHUNK_BYTES } from "../../../lib/parts/store.ts";
import {
  chunkRuns,
  readSection,
  readSections,
  type RollupEntry,
  RUN_GAP,
  type SectionAsk,
} from "../../../lib/query/rollup/store.ts";
import { keys } from "../../../lib/store/keys.ts";

const SEC_SPAN = 10_000;

/** Deterministic bytes of a section (distinct per part and section). */
function bytesOf(part: string, sec: number, n: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = sec * 7919 + part.length * 104_729 + part.charCodeAt(part.length - 1);
  for (let i = 0; i < n; i++) b[i] = (x = (x * 1_103_515_245 + 12_345) >>> 0) >>> 24;
  return b;
}

/** A part's sections written as compaction writes them (chunks of CHUNK_BYTES), and its entry. */
async function writePart(kv: Deno.Kv, part: string, sizes: Record<number, number>): Promise<RollupEntry> {
  const secs: RollupEntry["secs"] = {};
  for (const [s, n] of Object.entries(sizes)) {
    const sec = Number(s), bytes = bytesOf(part, sec, n), chunks = Math.max(1, Math.ceil(n / CHUNK_BYTES));
    for (let j = 0; j < chunks; j++) {
      await kv.set(
        keys.rollupChunk(part, sec * SEC_SPAN + j),
        bytes.slice(j * CHUNK_BYTES, (j + 1) * CHUNK_BYTES),
      );
    }
    secs[sec] = [n, chunks, n];
  }
  return { v: 10, head: { hours: [], tps: [], traffics: [] } as unknown as RollupEntry["head"], secs };
}

/** A KV that counts `getMany` keys and `list` calls. */
function counting(kv: Deno.Kv) {
  const n = { getManyKeys: 0, lists: 0, listed: 0 };
  const proxy = new Proxy(kv, {
    get(target, name) {
      if (name === "getMany") {
        return (ks: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
          n.getManyKeys += ks.length;
          return target.getMany(ks, o);
        };
      }
      if (name === "list") {
        return async function* (sel: Deno.KvListSelector, o?: Deno.KvListOptions) {
          n.lists++;
          for await (const e of target.list(sel, o)) {
            n.listed++;
            yield e;
          }
        };
      }
      const v = Reflect.get(target, name, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: proxy, n };
}

Deno.test("chunk runs: a part's neighbouring sections are listed together, each answered exactly", async () => {
  const kv = await Deno.openKv(":memory:");
  // sections 73, 74, 75 side by side (74 of three chunks), 80 past a large unwanted 76, 90 alone in part b
  const a = await writePart(kv, "part-a", {
    73: 900,
    74: 2 * CHUNK_BYTES + 500,
    75: 4_000,
    76: RUN_GAP + 1_000,
    80: 700,
    81: 300,
  });
  const b = await writePart(kv, "part-b", { 90: 1_200, 91: 100 });
  const asks: SectionAsk[] = [
    { partId: "part-a", entry: a, sec: 75 },
    { partId: "part-a", entry: a, sec: 73 },
    { partId: "part-a", entry: a, sec: 74 },
    { partId: "part-a", entry: a, sec: 80 },
    { partId: "part-b", entry: b, sec: 90 },
    { partId: "part-a", entry: a, sec: 74 }, // asked twice
    { partId: "part-a", entry: a, sec: 99 }, // not listed: null
  ];
  const { kv: counted, n } = counting(kv);
  const got = await readSections(counted, asks);
  for (const [x, { partId, entry, sec }] of asks.entries()) {
    const want = await readSection(kv, partId, entry, sec);
    assert.deepEqual(got[x], want, `section ${sec} of ${partId}`);
  }
  assert.equal(got[6], null);
  assert.notEqual(got[2], got[5], "a section asked twice gets its own bytes each time");
  // 73-75 (five chunks) in one list; 80 and 90 alone by getMany (76 lies between 75 and 80)
  assert.equal(n.lists, 1, "one list for the neighbouring sections");
  assert.equal(n.listed, 5);
  assert.equal(n.getManyKeys, 2);
  kv.close();
});

Deno.test("chunk runs: a small unwanted section between two wanted ones is read and let go; a stray key is skipped", async () => {
  const kv = await Deno.openKv(":memory:");
  const a = await writePart(kv, "part-a", { 300: 5_000, 301: 2_000, 302: 6_000, 332: 3_000 });
  // a key of a section the entry does not list, inside the range (left by an older write): not taken for a chunk
  await kv.set(keys.rollupChunk("part-a", 310 * SEC_SPAN), new Uint8Array([1, 2, 3]));
  const asks: SectionAsk[] = [300, 302, 332].map((sec) => ({ partId: "part-a", entry: a, sec }));
  const runs = chunkRuns(asks);
  assert.equal(runs.runs.length, 1, "300, 302 and 332 in one run: 301 is small");
  assert.deepEqual(runs.singles, []);
  const { kv: counted, n } = counting(kv);
  const got = await readSections(counted, asks);
  for (const [x, { partId, entry, sec }] of asks.entries()) {
    assert.deepEqual(got[x], await readSection(kv, partId, entry, sec), `section ${sec}`);
  }
  assert.equal(n.lists, 1);
  assert.equal(n.listed, 5, "the three wanted chunks, section 301's and the stray key");
  assert.equal(n.getManyKeys, 0);
  kv.close();
});

Deno.test("chunk runs: a section whose chunk went answers undefined, the others their bytes", async () => {
  const kv = await Deno.openKv(":memory:");
  const a = await writePart(kv, "part-a", { 74: 2 * CHUNK_BYTES + 10, 75: 800 });
  await kv.delete(keys.rollupChunk("part-a", 74 * SEC_SPAN + 1));
  const got = await readSections(kv, [74, 75].map((sec) => ({ partId: "part-a", entry: a, sec })));
  assert.equal(got[0], undefined, "a chunk gone: the section is gone (a merge: the question re-plans)");
  assert.deepEqual(got[1], bytesOf("part-a", 75, 800));
  kv.close();
});
