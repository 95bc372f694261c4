/**
 * Hostile bodies against every endpoint (tests/helpers/fuzz.ts): no 5xx, every stored record readable
 * and as sent, every answer JSON with well-formed strings; compaction folds all of it and every tool still
 * answers. bench/fuzz.ts runs the same cases 100,000 times.
 */
import { compactAndReadAll, fuzzEndpoint, fuzzWorld } from "../helpers/fuzz.ts";

Deno.test("fuzz: hostile bodies on every endpoint never make a 5xx, a bad record or an answer that is not JSON", async (t) => {
  const w = await fuzzWorld();
  const run = (endpoint: Parameters<typeof fuzzEndpoint>[1], cases: number) =>
    t.step(`${endpoint}: ${cases} cases`, () => fuzzEndpoint(w, endpoint, cases));
  await run("events", 700);
  await run("server-events", 600);
  await run("import", 250);
  // what the ingest cases stored is folded first, as the minute's compaction would: reads then scan parts
  await t.step("compaction folds everything stored; every tool answers", () => compactAndReadAll(w));
  await run("read", 500);
  await run("mcp", 400);
  w.deps.kv.close();
});
