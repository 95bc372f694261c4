/**
 * A question's working memory (lib/working_memory.ts): counted in live bytes while it answers, let go when
 * freed (packed_arrays.ts `release`) or kept by a cache, all of it when the question ends (also when it
 * throws), refused past the limit with a 422 naming the setting; nothing counted outside a question.
 */
import assert from "node:assert/strict";
import { hold, holdArraysOf, keptArraysOf, WorkingMemory } from "../../lib/working_memory.ts";
import { release } from "../../lib/parts/packed_arrays.ts";
import { HttpError } from "../../lib/errors.ts";

Deno.test("working memory: held while the question answers, let go when freed, all of it at the end", async () => {
  let grew = 0;
  const w = new WorkingMemory(1 << 20, () => grew++);
  const a = new Uint8Array(1000), b = new Float64Array(500), kept = { x: new Int32Array(250) };
  await w.run(async () => {
    hold([a, b, a]); // (a buffer once)
    assert.equal(w.total, 5000);
    assert.equal(WorkingMemory.held(), 5000);
    holdArraysOf(kept);
    assert.equal(w.total, 6000);
    keptArraysOf(kept); // a cache keeps it now: weighed there
    assert.equal(w.total, 5000);
    release(a); // freed at once
    assert.equal(w.total, 4000);
    await Promise.resolve();
    assert.equal(WorkingMemory.held(), 4000);
  });
  assert.equal(w.total, 0, "nothing held once the question ended");
  assert.equal(w.peakQuestion, 6000);
  assert.ok(grew >= 2, "the caches were asked to make room as it grew");
  // outside a question nothing is counted
  hold([new Uint8Array(10_000)]);
  assert.equal(w.total, 0);
});

Deno.test("working memory: a question past the limit is refused with a 422 naming the setting, and lets go", async () => {
  const w = new WorkingMemory(4096, () => {}, "QUESTION_MEMORY_MB");
  await assert.rejects(
    () =>
      w.run(() => {
        hold([new Uint8Array(3000)]);
        hold([new Uint8Array(3000)]);
        return Promise.resolve();
      }),
    (e: unknown) => e instanceof HttpError && e.status === 422 && /QUESTION_MEMORY_MB/.test(e.message),
  );
  assert.equal(w.total, 0, "a refused question holds nothing after");
  // the next question has the whole limit again
  await w.run(() => Promise.resolve(hold([new Uint8Array(4000)])));
});

Deno.test("working memory: questions at once each count their own; one asked inside another is the outer's", async () => {
  const w = new WorkingMemory(10_000);
  let release1!: () => void, release2!: () => void;
  const gate1 = new Promise<void>((r) => release1 = r), gate2 = new Promise<void>((r) => release2 = r);
  const one = w.run(async () => {
    hold([new Uint8Array(6000)]);
    await gate1;
    // a question asked inside this one: its bytes are this one's (past the limit together)
    await assert.rejects(() => w.run(() => Promise.resolve(hold([new Uint8Array(6000)]))), HttpError);
  });
  // another question at the same time: its own 6,000 bytes fit its own limit
  const two = w.run(async () => {
    hold([new Uint8Array(6000)]);
    await gate2;
  });
  await Promise.resolve();
  assert.equal(w.total, 12_000, "both counted in the total the caches make room for");
  release1();
  release2();
  await Promise.all([one, two]);
  assert.equal(w.total, 0);
  assert.equal(w.peakTotal, 12_000);
});
