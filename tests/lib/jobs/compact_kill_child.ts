/**
 * For compact_kill_test.ts: compacts the events in the KV file named by the first argument at the clock
 * time of the second, and freezes right after publishing its first part (prints "published"), to be killed.
 */
import { FakeClock } from "../../../lib/clock.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { testDeps } from "../../helpers/deps.ts";

const kv = await Deno.openKv(Deno.args[0]);
const deps = await testDeps({ kv, clock: new FakeClock(Number(Deno.args[1])) });
await compact(deps, "org1", "production", "ev", {
  graceMs: 0,
  maxRows: 100,
  failAt: (step) => {
    if (step !== "published") return;
    console.log("published");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000); // frozen until killed
  },
});
