/**
 * The visitor and session numbering (columns/intern.ts): one number per id (per owning visitor for
 * sessions), whatever form the id takes (UUIDs are stored packed, other ids as they came), and visitors
 * compared in the byte order of their ids, as parts sort them.
 */
import assert from "node:assert/strict";

const assertEquals = <T>(a: T, b: T, m?: string) => assert.deepStrictEqual(a, b, m);
import { Interner } from "../../../lib/query/columns/intern.ts";

/** A small deterministic generator (xorshift), so a failure repeats. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function ids(r: () => number, n: number): string[] {
  const hex = (k: number, upper = false) => {
    let s = "";
    for (let i = 0; i < k; i++) s += "0123456789abcdef"[Math.floor(r() * 16)];
    return upper ? s.toUpperCase() : s;
  };
  const uuid = (upper = false) =>
    `${hex(8, upper)}-${hex(4, upper)}-${hex(4, upper)}-${hex(4, upper)}-${hex(12, upper)}`;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = Math.floor(r() * 8);
    if (kind < 4) out.push(uuid());
    else if (kind === 4) out.push(uuid(true)); // not canonical: stored as it came
    else if (kind === 5) out.push(uuid().replace(/-/g, "")); // 32 hex digits, no dashes
    else if (kind === 6) out.push(uuid().slice(0, 35) + "g"); // looks like one, is not
    else out.push(["anon-", "é", "", "0", "a", "~"][Math.floor(r() * 6)] + hex(Math.floor(r() * 6)));
  }
  return out;
}

const bytesOrder = (a: string, b: string) => {
  const x = new TextEncoder().encode(a), y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};

Deno.test("interner: one number per visitor id, in the order the ids were first seen", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const r = rng(seed), pool = ids(r, 300), interner = new Interner(), ref = new Map<string, number>();
    for (let k = 0; k < 3_000; k++) {
      const id = pool[Math.floor(r() * pool.length)];
      if (!ref.has(id)) ref.set(id, ref.size);
      const bytes = new TextEncoder().encode(`xx${id}yy`); // ids read inside a larger buffer, as parts hold them
      assertEquals(interner.visBytes(bytes, 2, bytes.length - 2), ref.get(id), `seed ${seed}, ${id}`);
      assertEquals(interner.vis(id), ref.get(id));
    }
    assertEquals(interner.visitorCount, ref.size);
  }
});

Deno.test("interner: visitors compare as their ids' UTF-8 bytes, packed or not", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const r = rng(seed), some = ids(r, 400);
    // a shared 7-digit start makes ties in the sort prefix common
    const pool = [...new Set([...some, ...some.slice(0, 50).map((id) => "0000000" + id.slice(7))])];
    const interner = new Interner(), numbers = pool.map((id) => interner.vis(id));
    const byInterner = [...numbers].sort((a, b) => interner.compareVisitors(a, b)).map((n) => pool[n]);
    assertEquals(byInterner, [...pool].sort(bytesOrder));
    for (let k = 0; k < 500; k++) {
      const a = Math.floor(r() * pool.length), b = Math.floor(r() * pool.length);
      assertEquals(
        Math.sign(interner.compareVisitors(numbers[a], numbers[b])),
        Math.sign(bytesOrder(pool[a], pool[b])),
        `${pool[a]} vs ${pool[b]}`,
      );
    }
  }
});

Deno.test("interner: a session's number is its visitor's own, the same id under two visitors two sessions", () => {
  const r = rng(7), pool = ids(r, 200), interner = new Interner(), ref = new Map<string, number>();
  for (let k = 0; k < 5_000; k++) {
    const v = Math.floor(r() * 30), id = pool[Math.floor(r() * pool.length)], key = `${v}|${id}`;
    if (!ref.has(key)) ref.set(key, ref.size);
    assertEquals(interner.ses(v, id), ref.get(key));
  }
  assertEquals(interner.sessionCount, ref.size);
});

Deno.test("interner: a UUID takes 16 bytes of its table, not 36", () => {
  const r = rng(3), interner = new Interner();
  const before = interner.bytes;
  for (const id of ids(r, 40_000).filter((x) => x.length === 36 && x[8] === "-")) interner.vis(id);
  // ~24,000 ids: slots, offsets, hashes and prefixes ~21 bytes an id, the packed id 16
  const perId = (interner.bytes - before) / interner.visitorCount;
  if (perId > 60) throw new Error(`${perId.toFixed(1)} bytes an id`);
});
