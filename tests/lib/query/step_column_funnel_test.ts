/**
 * Funnels from the parts' step columns (sequence/funnel_column.ts) against the reference and the streamed
 * parts: random events over two midnights (sessions crossing parts), a later part of an earlier day (late
 * events), a raw tail, receive times on whole minutes with equal device times and numbers (order ties), a
 * DST timezone, conversion windows, by visitor and by session, two touchpoints, bots.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { backfillStepColumns } from "../../../lib/jobs/step_column_backfill.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { ScanContexts } from "../../../lib/query/scan/contexts.ts";
import { columnFunnel } from "../../../lib/query/sequence/funnel_column.ts";
import { scanFunnel, streamFunnel } from "../../../lib/query/sequence/funnel_stream.ts";
import { buildStepColumn } from "../../../lib/query/step_column/build.ts";
import {
  decodeSection,
  decodeSessions,
  deleteStepColumn,
  encodeSection,
  encodeSessions,
} from "../../../lib/query/step_column/store.ts";
import { buildEventBatch } from "../../../lib/parts/event_batch.ts";
import type { FunnelOptions, StepDef } from "../../../lib/query/sequence_types.ts";
import type { Scope } from "../../../lib/query/types.ts";
import { testDeps } from "../../helpers/deps.ts";
import { store } from "./fixtures.ts";
import { eventArb, MIDNIGHT, NOW, type Raw, toEvents } from "./step_column_fixtures.ts";
import { naiveFunnel } from "./reference.ts";

const stepArb = fc.constantFrom<StepDef>(
  { event_type: "$pageview", filters: [{ field: "page", op: "eq", value: "/" }] },
  { event_type: "$pageview", filters: [{ field: "page", op: "prefix", value: "/docs/" }] },
  { event_type: "$pageview", filters: [{ field: "page", op: "neq", value: "/pricing" }] },
  { event_type: "$pageview", filters: [{ field: "touchpoint", op: "eq", value: "tp2" }] },
  { event_type: "$pageview" },
  { event_type: "sign_up" },
  { event_type: "purchase", filters: [{ field: "event_type", op: "eq", value: "purchase" }] },
  { event_type: "$pageleave" },
);

const optionsArb = fc.record({
  steps: fc.array(stepArb, { minLength: 1, maxLength: 4 }),
  by: fc.constantFrom<"visitor" | "session">("visitor", "session"),
  window: fc.option(fc.constantFrom(0, 60_000, 30 * 60_000, 86_400_000), { nil: undefined }),
  touchpoint: fc.option(fc.constantFrom("tp1", "tp2"), { nil: undefined }),
  traffic: fc.constantFrom<Scope["traffic"]>(undefined, ["human", "bot"]),
  from: fc.constantFrom(MIDNIGHT - 86_400_000, MIDNIGHT - 30 * 60_000, MIDNIGHT + 86_400_000 - 20 * 60_000),
});

Deno.test("funnels from step columns equal the reference and the streamed parts", async () => {
  let taken = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 40 }),
      fc.array(eventArb, { maxLength: 10 }),
      fc.array(eventArb, { maxLength: 10 }),
      optionsArb,
      async (first, late, tail, q) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const a = toEvents(first), b = toEvents(late), c = toEvents(tail);
          await store(deps.kv, { events: a });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await store(deps.kv, { events: b });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await backfillStepColumns(deps, "org1", "production");
          await store(deps.kv, { events: c });
          const scope: Scope = {
            org: "org1",
            env: "production",
            from: q.from,
            to: NOW,
            timezone: "Europe/Berlin",
            ...(q.touchpoint ? { touchpoint: q.touchpoint } : {}),
            ...(q.traffic ? { traffic: q.traffic } : {}),
          };
          const o: FunnelOptions = {
            steps: q.steps,
            by: q.by,
            ...(q.window !== undefined ? { window_ms: q.window } : {}),
          };
          const expected = naiveFunnel([...a, ...b, ...c], scope, o);
          const tiny = new ScanContexts(
            new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }),
          );
          const got = await columnFunnel(tiny, scope, o, deps.kv);
          assert.notEqual(got, null, "every part has a column: the column answers");
          assert.deepEqual(got, expected);
          assert.deepEqual(await scanFunnel(tiny, scope, o, deps.kv), expected);
          assert.deepEqual(await streamFunnel(tiny, scope, o), expected);
          // the rows walked by ranges of visitors (a read holding one or two rows at most)
          for (const passRows of [1, 2]) {
            assert.deepEqual(
              await columnFunnel(tiny, scope, o, deps.kv, { passRows, blockShift: 0 }),
              expected,
            );
          }
          // parts' matching rows kept by a roomy source: asked again, and over another period from them
          const roomy = new ScanContexts(new Source(deps));
          assert.deepEqual(await columnFunnel(roomy, scope, o, deps.kv), expected);
          assert.deepEqual(await columnFunnel(roomy, scope, o, deps.kv), expected);
          assert.deepEqual(
            await columnFunnel(new ScanContexts(new Source(deps)), scope, o, deps.kv, {
              passRows: 1,
              blockShift: 0,
            }),
            expected,
          );
          // a new raw event: the kept answer is not taken
          const st = q.steps[0], f = st.filters?.[0];
          const more = toEvents([{
            ...first[0],
            minute: 59,
            day: 1,
            visitor: "v5" as Raw["visitor"],
            type: st.event_type as Raw["type"],
            page: f?.field === "page" && f.op === "prefix" ? "/docs/a" : "/",
            touchpoint: q.touchpoint ?? (f?.field === "touchpoint" ? "tp2" : "tp1"),
            traffic: "human",
          }]);
          await store(deps.kv, { events: more });
          assert.deepEqual(
            await columnFunnel(roomy, scope, o, deps.kv),
            naiveFunnel([...a, ...b, ...c, ...more], scope, o),
          );
          const later = { ...scope, from: MIDNIGHT + 86_400_000 - 60 * 60_000 };
          assert.deepEqual(
            await columnFunnel(roomy, later, o, deps.kv),
            naiveFunnel([...a, ...b, ...c, ...more], later, o),
          );
          taken++;
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 80 },
  );
  assert.ok(taken > 0);
});

/** Few distinct times: rows of one visitor equal in receive time, device time and number. */
const tiedArb = fc.record({
  minute: fc.constantFrom(-30, -1, 0, 2),
  day: fc.integer({ min: 0, max: 1 }),
  visitor: fc.constantFrom("v1", "v2"),
  session: fc.constantFrom("s1", "s2", "s3"),
  type: fc.constantFrom("$pageview", "sign_up", "purchase"),
  page: fc.constantFrom("/", "/pricing"),
  touchpoint: fc.constant("tp1"),
  traffic: fc.constant("human"),
  skew: fc.constant(0),
  seq: fc.constant(0),
});

Deno.test("order ties (equal receive time, device time, number) resolve as the streamed parts resolve them", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(tiedArb, { minLength: 2, maxLength: 30 }),
      fc.array(tiedArb, { maxLength: 8 }),
      fc.array(tiedArb, { maxLength: 8 }),
      fc.array(stepArb, { minLength: 2, maxLength: 4 }),
      fc.constantFrom<"visitor" | "session">("visitor", "session"),
      async (first, late, tail, steps, by) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          await store(deps.kv, { events: toEvents(first) });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await store(deps.kv, { events: toEvents(late) });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          await backfillStepColumns(deps, "org1", "production");
          await store(deps.kv, { events: toEvents(tail) });
          const scope: Scope = {
            org: "org1",
            env: "production",
            from: MIDNIGHT - 86_400_000,
            to: NOW,
            timezone: "UTC",
          };
          const o: FunnelOptions = { steps, by };
          const tiny = new ScanContexts(
            new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }),
          );
          assert.deepEqual(await columnFunnel(tiny, scope, o, deps.kv), await streamFunnel(tiny, scope, o));
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 80 },
  );
});

Deno.test("compaction writes step columns; a part without one, a split or a condition the column lacks: the parts are streamed", async () => {
  const deps = await testDeps();
  deps.clock.set(NOW);
  try {
    const raw: Raw = {
      minute: -10,
      day: 0,
      visitor: "v1",
      session: "s1",
      type: "$pageview",
      page: "/",
      touchpoint: "tp1",
      traffic: "human",
      skew: 0,
      seq: 0,
    };
    const events = toEvents([
      {
        minute: -10,
        day: 0,
        visitor: "v1",
        session: "s1",
        type: "$pageview",
        page: "/",
        touchpoint: "tp1",
        traffic: "human",
        skew: 0,
        seq: 0,
      },
      {
        minute: 5,
        day: 0,
        visitor: "v1",
        session: "s1",
        type: "sign_up",
        page: "/",
        touchpoint: "tp1",
        traffic: "human",
        skew: 0,
        seq: 1,
      },
    ]);
    await store(deps.kv, { events });
    await compact(deps, "org1", "production", "ev", { graceMs: 0 });
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: MIDNIGHT - 86_400_000,
      to: NOW,
      timezone: "UTC",
    };
    const o: FunnelOptions = { steps: [{ event_type: "$pageview" }, { event_type: "sign_up" }] };
    const tiny = new ScanContexts(new Source({ ...deps, config: { ...deps.config, partCacheBytes: 1 } }));
    const parts = await listParts(deps.kv, "org1", "production", "ev");
    assert.deepEqual(
      await columnFunnel(tiny, scope, o, deps.kv),
      naiveFunnel(events, scope, o),
      "compaction wrote it",
    );
    await deleteStepColumn(deps.kv, parts[0].meta.id);
    assert.equal(await columnFunnel(tiny, scope, o, deps.kv), null, "a part without a column");
    assert.deepEqual(await scanFunnel(tiny, scope, o, deps.kv), naiveFunnel(events, scope, o));
    const done = await backfillStepColumns(deps, "org1", "production");
    assert.ok(done.parts > 0 && done.remaining === 0);
    assert.deepEqual(await columnFunnel(tiny, scope, o, deps.kv), naiveFunnel(events, scope, o));
    // kept by a roomy source while the parts and raw tail are the same; new raw events are counted
    const roomy = new ScanContexts(new Source(deps));
    assert.deepEqual(await columnFunnel(roomy, scope, o, deps.kv), naiveFunnel(events, scope, o));
    assert.deepEqual(await columnFunnel(roomy, scope, o, deps.kv), naiveFunnel(events, scope, o));
    const more = toEvents([
      { ...raw, minute: 20, visitor: "v2", type: "$pageview" },
      { ...raw, minute: 21, visitor: "v2", type: "sign_up" },
    ]);
    await store(deps.kv, { events: more });
    const now = await columnFunnel(roomy, scope, o, deps.kv);
    assert.deepEqual(now, naiveFunnel([...events, ...more], scope, o));
    assert.equal(now!.steps[1].count, 2);
    assert.equal(
      await columnFunnel(tiny, scope, { ...o, split: { field: "country", top: 3 } }, deps.kv),
      null,
    );
    const byCountry = {
      steps: [{
        event_type: "sign_up",
        filters: [{ field: "country" as const, op: "eq" as const, value: "DE" }],
      }],
    };
    assert.equal(await columnFunnel(tiny, scope, byCountry, deps.kv), null);
  } finally {
    deps.kv.close();
  }
});

Deno.test("a step column section decodes to what was encoded, float times included", async () => {
  const events = toEvents([
    {
      minute: -10,
      day: 0,
      visitor: "v2",
      session: "s1",
      type: "$pageview",
      page: "/",
      touchpoint: "tp1",
      traffic: "human",
      skew: 0,
      seq: 0,
    },
    {
      minute: 5,
      day: 1,
      visitor: "v1",
      session: "s2",
      type: "$pageview",
      page: "/docs/a",
      touchpoint: "tp2",
      traffic: "bot",
      skew: -1500,
      seq: 2,
    },
    {
      minute: 7,
      day: 1,
      visitor: "v1",
      session: "s2",
      type: "$pageview",
      page: "/docs/a",
      touchpoint: "tp2",
      traffic: "bot",
      skew: 0,
      seq: 1,
    },
  ]);
  events[1].received_at += 0.25; // not whole ms: kept as floats
  const batch = await buildEventBatch(events);
  const secs = buildStepColumn(batch, (i) => i * 3);
  for (const sec of secs) {
    const back = decodeSection(encodeSection(sec));
    assert.deepEqual({ ...back, h1: sec.h1, h2: sec.h2 }, sec);
  }
  assert.deepEqual(decodeSessions(encodeSessions(secs[0].h1, secs[0].h2)), {
    h1: secs[0].h1,
    h2: secs[0].h2,
  });
});
