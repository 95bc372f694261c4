/**
 * The scan's one budget (columns/budget.ts) counts what is held outside its lists too (the visitor and
 * session numbering): parts and derived data make room for it, and a part that would not fit beside it is
 * not kept; `fit` makes room when what is held outside grows without anything being set.
 */
import assert from "node:assert/strict";
import { Budget } from "../../../lib/query/columns/budget.ts";

Deno.test("budget: memory held outside the lists pushes out parts, then derived data", () => {
  let held = 0;
  const b = new Budget(1_000, () => held);
  b.setPart("a", "A", 300);
  b.setPart("b", "B", 300);
  b.setKept("k", "K", 200);
  assert.equal(b.used, 800);
  held = 300; // the numbering grew: the next part makes room for it, oldest part first
  b.setPart("c", "C", 100);
  assert.equal(b.part("a"), undefined);
  assert.equal(b.part("b"), "B");
  assert.equal(b.used, 900);
  held = 700;
  b.setPart("d", "D", 100);
  assert.equal(b.part("b"), undefined);
  assert.equal(b.part("c"), undefined);
  assert.equal(b.kept("k"), "K", "derived data goes after the parts");
  assert.ok(b.used <= 1_000);
  held = 850; // derived data kept now makes room from older derived data first
  b.setKept("k2", "K2", 50);
  assert.equal(b.kept("k"), undefined);
  assert.equal(b.part("d"), "D");
  assert.equal(b.used, 1_000);
});

Deno.test("budget: a part that does not fit beside what is held outside is not kept", () => {
  const b = new Budget(1_000, () => 600);
  b.setPart("a", "A", 500);
  assert.equal(b.part("a"), undefined);
  b.setPart("b", "B", 400);
  assert.equal(b.part("b"), "B");
  assert.equal(b.used, 1_000);
  assert.equal(b.listed, 400);
});

Deno.test("budget: fit makes room at once for what is held outside (a stream's parts read ahead)", () => {
  let held = 0;
  const b = new Budget(1_000, () => held);
  b.setPart("a", "A", 400);
  b.setKept("k", "K", 400);
  held = 300; // a stream starts reading ahead: nothing is set, so fit is what trims
  b.fit();
  assert.equal(b.part("a"), undefined, "parts go first");
  assert.equal(b.kept("k"), "K");
  assert.ok(b.used <= 1_000);
});
