/** Issue 32: Host, method, header and framing mutations over a real socket never get a 5xx. */
import assert from "node:assert/strict";
import { fuzzWorld } from "../helpers/fuzz.ts";
import { fuzzWire } from "../helpers/fuzz_wire.ts";
import { serveGuarded } from "../../lib/server/connection_guard.ts";

Deno.test("fuzz wire: 120 mutated requests over every public endpoint, no 5xx", async () => {
  const w = await fuzzWorld();
  const server = serveGuarded({ hostname: "127.0.0.1", port: 0 }, w.app.fetch, {
    bodyMs: 2_000,
    headerMs: 2_000,
    idleMs: 2_000,
    perAddress: 1_000,
  });
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  try {
    await fuzzWire(w, server.addr.port, 120, { seed: 32, failures, statuses });
  } finally {
    await server.shutdown();
    w.deps.kv.close();
  }
  assert.deepEqual(failures, []);
  assert.ok([...statuses.keys()].some((s) => s >= 400 && s < 500), "hostile requests were refused");
});
