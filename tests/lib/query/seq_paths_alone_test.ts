/**
 * Paths from step columns when sessions are told apart by their ids alone (each visitor's own session ids,
 * as the SDK makes them): most sessions are then in one part alone and their paths are taken from that part
 * at once (sequence/paths_column.ts `sharedSessions`); sessions crossing midnight, late parts and a raw tail
 * still go through the rows. Equal to the reference, and to the column taking every session as shared.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { columnPaths, sharedSessions } from "../../../lib/query/sequence/paths_column.ts";
import type { PathsOptions } from "../../../lib/query/sequence_types.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { naivePaths } from "./reference.ts";
import { columnSite, eventArb, MIDNIGHT, NOW, type Raw } from "./step_column_fixtures.ts";

/** Session ids of one visitor only (the fixtures reuse "s1".."s3" across visitors). */
const own = (raw: Raw[]): Raw[] =>
  raw.map((r) => ({ ...r, session: `${r.visitor}-${r.session}` as Raw["session"] }));

const optionsArb = fc.record({
  anchor: fc.constantFrom<PathsOptions["anchor"]>(
    { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
    { event_type: "$pageview" },
    { event_type: "sign_up" },
  ),
  direction: fc.constantFrom<"after" | "before">("after", "before"),
  depth: fc.integer({ min: 1, max: 4 }),
  step: fc.constantFrom<PathsOptions["step"]>("page", "event", "page_or_event"),
  rank: fc.constantFrom<PathsOptions["rank"]>("sessions", "visitors"),
  limit: fc.integer({ min: 1, max: 5 }),
});

Deno.test("paths: sessions in one part alone are walked from it, equal to the reference", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 8 }),
      optionsArb,
      fc.constantFrom(MIDNIGHT - 86_400_000, MIDNIGHT - 30 * 60_000),
      (first, late, tail, o, from) =>
        columnSite(own(first), own(late), own(tail), async ({ deps, all, tiny }) => {
          const scope: Scope = { org: "org1", env: "production", from, to: NOW, timezone: "UTC" };
          const got = await columnPaths(tiny, scope, o, deps.kv);
          assert.deepEqual(got, naivePaths(all, scope, o));
          assert.deepEqual(await columnPaths(tiny, scope, o, deps.kv, { alone: false }), got);
          assert.deepEqual(await columnPaths(tiny, scope, o, deps.kv, { openMs: -Infinity }), got);
        }),
    ),
    { numRuns: 80 },
  );
});

Deno.test("paths: a session is alone only when no other table holds its id hashes", () => {
  const t = (pairs: [number, number][]) => ({
    h1: Uint32Array.from(pairs, (p) => p[0]),
    h2: Uint32Array.from(pairs, (p) => p[1]),
  });
  const shared = sharedSessions([t([[1, 2], [3, 4], [5, 6]]), t([[3, 4], [7, 8]]), t([[5, 6], [5, 6]])]);
  assert.deepEqual(shared.map((s) => [...s]), [[0, 1, 1], [1, 0], [1, 1]]);
  assert.deepEqual(sharedSessions([t([[1, 2]])], true).map((s) => [...s]), [[1]]);
});
