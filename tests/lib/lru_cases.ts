import assert from "node:assert/strict";
import { Lru, remember } from "../../lib/lru.ts";

Deno.test("lru: drops the least recently used key when full", () => {
  const lru = new Lru<number>(2);
  lru.set("a", 1);
  lru.set("b", 2);
  assert.equal(lru.get("a"), 1); // a is now the most recent
  lru.set("c", 3);
  assert.equal(lru.get("b"), undefined);
  assert.equal(lru.get("a"), 1);
  assert.equal(lru.get("c"), 3);
  assert.equal(lru.size, 2);
});

Deno.test("lru: remember keeps a map to its bound, dropping the oldest entry; a key set again is the newest", () => {
  const m = new Map<string, number>();
  for (const [k, v] of [["a", 1], ["b", 2], ["c", 3]] as const) remember(m, k, v, 2);
  assert.deepEqual([...m], [["b", 2], ["c", 3]]);
  remember(m, "b", 20, 2);
  remember(m, "d", 4, 2);
  assert.deepEqual([...m], [["b", 20], ["d", 4]]);
});

Deno.test("lru: weighted entries (the part cache's bytes) stay within capacity, least recently used out first", () => {
  const c = new Lru<string>(100);
  c.set("a", "A", 40);
  c.set("b", "B", 40);
  assert.equal(c.get("a"), "A"); // a is now the most recent
  c.set("c", "C", 40); // over budget: b goes
  assert.equal(c.get("b"), undefined);
  assert.equal(c.get("a"), "A");
  assert.equal(c.get("c"), "C");
  assert.ok(c.used <= 100);
  c.set("huge", "H", 500); // larger than the whole cache: not kept, nothing evicted
  assert.equal(c.get("huge"), undefined);
  assert.equal(c.size, 2);
});

Deno.test("lru: a peek gives the value without counting it as used (the least recently used still goes first)", () => {
  const c = new Lru<number>(2);
  c.set("a", 1);
  c.set("b", 2);
  assert.equal(c.peek("a"), 1);
  assert.equal(c.peek("x"), undefined);
  c.set("c", 3); // a was only looked at: it is still the least recently used
  assert.equal(c.peek("a"), undefined);
  assert.equal(c.peek("b"), 2);
  assert.equal(c.get("b"), 2); // a use: b is now the newest, c goes next
  c.set("d", 4);
  assert.equal(c.peek("c"), undefined);
  assert.equal(c.peek("b"), 2);
});
