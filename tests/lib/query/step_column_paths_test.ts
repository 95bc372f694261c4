/**
 * Paths from the parts' step columns (sequence/paths_column.ts) against the reference and the streamed parts:
 * after and before an anchor, by page, event or both, ranked by sessions or visitors, over sessions crossing
 * midnight (in several parts), late parts, a raw tail, a DST timezone, touchpoints and traffic kinds.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { listParts } from "../../../lib/parts/store.ts";
import { columnPaths } from "../../../lib/query/sequence/paths_column.ts";
import { scanPaths, streamPaths } from "../../../lib/query/sequence/paths_stream.ts";
import { deleteStepColumn } from "../../../lib/query/step_column/store.ts";
import type { PathsOptions } from "../../../lib/query/sequence_types.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { naivePaths } from "./reference.ts";
import { columnSite, eventArb, MIDNIGHT, NOW, oneVisitorEvent, toEvents } from "./step_column_fixtures.ts";
import { store } from "./fixtures.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";

const optionsArb = fc.record({
  anchor: fc.constantFrom<PathsOptions["anchor"]>(
    { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
    { event_type: "$pageview", filters: [{ field: "page", op: "prefix", value: "/docs/" }] },
    { event_type: "$pageview" },
    { event_type: "sign_up" },
    { event_type: "purchase", filters: [{ field: "touchpoint", op: "eq", value: "tp2" }] },
  ),
  direction: fc.constantFrom<"after" | "before">("after", "before"),
  depth: fc.integer({ min: 1, max: 3 }),
  step: fc.constantFrom<PathsOptions["step"]>("page", "event", "page_or_event"),
  rank: fc.constantFrom<PathsOptions["rank"]>("sessions", "visitors"),
  limit: fc.integer({ min: 1, max: 5 }),
});

const scopeArb = fc.record({
  touchpoint: fc.option(fc.constantFrom("tp1", "tp2"), { nil: undefined }),
  traffic: fc.constantFrom<Scope["traffic"]>(undefined, ["human", "bot"]),
  from: fc.constantFrom(MIDNIGHT - 86_400_000, MIDNIGHT - 30 * 60_000, MIDNIGHT + 86_400_000 - 20 * 60_000),
});

Deno.test("paths from step columns equal the reference and the streamed parts", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      optionsArb,
      scopeArb,
      (first, late, tail, o, q) =>
        columnSite(first, late, tail, async ({ deps, all, tiny }) => {
          const scope: Scope = {
            org: "org1",
            env: "production",
            from: q.from,
            to: NOW,
            timezone: "Europe/Berlin",
            ...(q.touchpoint ? { touchpoint: q.touchpoint } : {}),
            ...(q.traffic ? { traffic: q.traffic } : {}),
          };
          const got = await columnPaths(tiny, scope, o, deps.kv);
          assert.notEqual(got, null, "every part has a column: the column answers");
          assert.deepEqual(got, naivePaths(all, scope, o));
          // sessions not anchored yet let go of at once (those anchored later read again), or held
          for (
            const tune of [{ openMs: -Infinity }, { openMs: 0 }, { openMs: Infinity }, { keepBytes: 0 }, {
              alone: false,
            }, { alone: false, openMs: -Infinity }]
          ) {
            assert.deepEqual(await columnPaths(tiny, scope, o, deps.kv, tune), got);
          }
          assert.deepEqual(got, await streamPaths(tiny, scope, o, { keepRows: Infinity }));
          assert.deepEqual(await scanPaths(tiny, scope, o, deps.kv), got);
        }),
    ),
    { numRuns: 60 },
  );
});

Deno.test("paths: a part without a step column or a cohort: the parts are streamed", async () => {
  await columnSite(
    [oneVisitorEvent(-10, "$pageview", "/pricing"), oneVisitorEvent(5, "$pageview", "/")],
    [],
    [],
    async ({ deps, all, tiny }) => {
      const scope: Scope = {
        org: "org1",
        env: "production",
        from: MIDNIGHT - 86_400_000,
        to: NOW,
        timezone: "UTC",
      };
      const o: PathsOptions = {
        anchor: { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/pricing" }] },
        direction: "after",
      };
      assert.deepEqual(await columnPaths(tiny, scope, o, deps.kv), naivePaths(all, scope, o));
      // kept by a roomy source while the parts and raw tail are the same; a new raw event is counted
      const roomy = new ScanContexts(new Source(deps));
      assert.deepEqual(await columnPaths(roomy, scope, o, deps.kv), naivePaths(all, scope, o));
      assert.deepEqual(await columnPaths(roomy, scope, o, deps.kv), naivePaths(all, scope, o));
      const more = toEvents([oneVisitorEvent(20, "$pageview", "/docs/a")]);
      await store(deps.kv, { events: more });
      const now = await columnPaths(roomy, scope, o, deps.kv);
      assert.deepEqual(now, naivePaths([...all, ...more], scope, o));
      assert.equal(now!.steps[0].rows[0].value, "/");
      assert.equal(now!.steps[1].rows[0].value, "/docs/a");
      const cohort = { did: { filters: [], from: scope.from, to: scope.to } };
      assert.equal(await columnPaths(tiny, { ...scope, cohort }, o, deps.kv), null);
      await deleteStepColumn(deps.kv, (await listParts(deps.kv, "org1", "production", "ev"))[0].meta.id);
      assert.equal(await columnPaths(tiny, scope, o, deps.kv), null, "a part lost its column");
      assert.deepEqual(await scanPaths(tiny, scope, o, deps.kv), naivePaths([...all, ...more], scope, o));
    },
  );
});
