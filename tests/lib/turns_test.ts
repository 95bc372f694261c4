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

Deno.test("turns: a request waiting on the server is answered within a few turns of a busy job", async () => {
  // a turn must let the loop poll I/O: in Deno a setImmediate or a MessageChannel message did not (~170
  // turns of 10 ms went by before the request was answered)
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, () => new Response("ok"));
  let answered = false;
  const asked = fetch(`http://127.0.0.1:${server.addr.port}/`).then((r) => r.text()).then(() =>
    answered = true
  );
  const turn = turns(0);
  let taken = 0;
  while (!answered && taken < 100) {
    const busy = performance.now();
    while (performance.now() - busy < 5) { /* the job's work */ }
    await turn();
    taken++;
  }
  await asked;
  await server.shutdown();
  assert.ok(taken <= 10, `answered after ${taken} turns`);
});
