import assert from "node:assert/strict";
import { turns } from "../../lib/turns.ts";

Deno.test("turns: over its budget a turn lets waiting timers run; within it, none do", async () => {
  let ran = false;
  const always = turns(0);
  setTimeout(() => ran = true, 0);
  await new Promise((r) => setTimeout(r, 5)); // let the budget pass and the timer run, then schedule anew
  ran = false;
  setTimeout(() => ran = true, 0);
  await always();
  assert.equal(ran, true);
  const never = turns(60_000);
  ran = false;
  const pending = setTimeout(() => ran = true, 0);
  await never();
  assert.equal(ran, false);
  clearTimeout(pending);
});
