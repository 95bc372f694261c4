import assert from "node:assert/strict";
import { type PartKeys, sharedKeys } from "../../../lib/query/rollup/spans.ts";

/** A small seeded generator (tests repeat exactly). */
function rng(seed: number) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1_664_525 + 1_013_904_223) >>> 0;
    return x / 4_294_967_296;
  };
}

/** Keys sorted by (visitor, hash), as a part's rollup stores them. */
function partKeys(pairs: [number, number][]): PartKeys {
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {
    n: pairs.length,
    vis: Uint32Array.from(pairs, (p) => p[0]),
    h: Uint32Array.from(pairs, (p) => p[1]),
    block: new Uint8Array(pairs.length),
  };
}

/** What sharedKeys answers, the plain way: a key is shared when another part holds the same key. */
function reference(parts: PartKeys[]): Uint8Array[] {
  const holders = new Map<string, Set<number>>();
  parts.forEach((k, p) => {
    for (let x = 0; x < k.n; x++) {
      const key = `${k.vis[x]}.${k.h[x]}`;
      let s = holders.get(key);
      if (!s) holders.set(key, s = new Set());
      s.add(p);
    }
  });
  return parts.map((k) =>
    Uint8Array.from({ length: k.n }, (_, x) => holders.get(`${k.vis[x]}.${k.h[x]}`)!.size > 1 ? 1 : 0)
  );
}

Deno.test("sharedKeys flags exactly the keys another part holds, over visitor numbers far past one range", () => {
  for (let seed = 1; seed <= 12; seed++) {
    const r = rng(seed);
    const space = [100, 20_000, 70_000, 200_000][seed % 4];
    const parts: [number, number][][] = Array.from({ length: 2 + Math.floor(r() * 12) }, () => []);
    const sessions = 50 + Math.floor(r() * 3_000);
    for (let s = 0; s < sessions; s++) {
      const v = Math.floor(r() * space), h = Math.floor(r() * 4) * 1_000_003; // few hashes: many equal keys
      const p = Math.floor(r() * parts.length);
      parts[p].push([v, h]);
      // a session crossing into another part (or late rows), sometimes the same part twice
      if (r() < 0.2) parts[Math.floor(r() * parts.length)].push([v, h]);
    }
    // a bot: one visitor with many sessions in several parts (its keys compared by hash)
    const bot = Math.floor(r() * space);
    for (let s = 0; s < 60; s++) parts[s % parts.length].push([bot, Math.floor(r() * 40)]);
    // keys either side of where the visitor numbers are cut into ranges (8,192 a range; 16,384 before)
    for (const v of [8_191, 8_192, 16_383, 16_384, 32_768]) {
      parts[0].push([v, 3]);
      parts[parts.length - 1].push([v, 3]);
    }
    // the last visitor number of the space, and one past the space given
    parts[0].push([space - 1, 7]);
    parts[parts.length - 1].push([space - 1, 7]);
    parts[0].push([space + 5, 9]);
    parts[1].push([space + 5, 9]);
    // whole hashes past 2^31 (compared as 32-bit integers), equal and not, in different parts
    parts[0].push([bot, 4_294_967_295], [bot, 2_147_483_648]);
    parts[parts.length - 1].push([bot, 4_294_967_295], [bot, 2_147_483_649]);
    const keys = parts.map(partKeys);
    assert.deepEqual(sharedKeys(keys, space), reference(keys), `seed ${seed}`);
  }
});

Deno.test("sharedKeys: a later range with many more keys than the ones before (its table grows mid-walk)", () => {
  const r = rng(7);
  const parts: [number, number][][] = Array.from({ length: 5 }, () => []);
  // a few keys in the first range, then ~20,000 in the third, many equal across parts
  for (let v = 0; v < 50; v += 7) parts[v % 5].push([v, v * 3]);
  for (let s = 0; s < 20_000; s++) {
    const v = 16_384 + Math.floor(r() * 8_000), h = Math.floor(r() * 3);
    parts[Math.floor(r() * 5)].push([v, h]);
  }
  // then a small range again, with one key in two parts
  parts[1].push([40_000, 11]);
  parts[3].push([40_000, 11]);
  const keys = parts.map(partKeys);
  assert.deepEqual(sharedKeys(keys, 50_000), reference(keys));
});

Deno.test("sharedKeys: no parts, empty parts, and one part holding a key twice (not shared)", () => {
  assert.deepEqual(sharedKeys([], 10), []);
  const one = partKeys([[3, 1], [3, 1], [40_000, 2]]);
  const empty = partKeys([]);
  assert.deepEqual(sharedKeys([one, empty], 5), [new Uint8Array(3), new Uint8Array(0)]);
});
