/**
 * A series' reporters (the people whose values count, counted up to 5) from the parts' Web Vitals tables
 * (each series keeps at most 5 visitor numbers) and from the scan, against a plain count over the records:
 * over whole days of several parts and a raw tail, by page, by device and overall. Few visitors over many
 * hours and parts, so a series' reporters are often 3 to 7: at the cut of 5, where a kept set of 5 and the
 * union of smaller ones must meet the plain count.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { Scope, ValueSeriesOptions, ValueSeriesResult } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { VitalsSource } from "../../../lib/query/vitals/source.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const DAY = 86_400_000;
const BASE = Date.parse("2026-10-30T00:00:00Z");

const eventArb = fc.record({
  hour: fc.integer({ min: 0, max: 3 * 24 - 1 }),
  visitor: fc.constantFrom(...Array.from({ length: 9 }, (_, i) => i)),
  metric: fc.constantFrom("LCP", "INP", "CLS"),
  // a string and a number outside every metric's range (1e9) and CLS's (1010, 650) count as no number
  value: fc.constantFrom<unknown>(1010, 2990, 0.05, 0.3, 190, 650, "slow", 1e9),
  page: fc.constantFrom("/", "/a"),
  device: fc.constantFrom("desktop", "mobile"),
  human: fc.constantFrom(true, true, true, false),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
const toEvents = (raw: Ev[], at: (r: Ev) => number): StoredEvent[] =>
  raw.map((r) =>
    ev({
      id: `r${serial++}`,
      received_at: at(r),
      anonymous_id: `v${r.visitor}`,
      session_id: `s${r.visitor}`,
      event_type: "$web_vitals",
      path: r.page,
      screen: r.page,
      device_type: r.device as StoredEvent["device_type"],
      traffic: r.human ? "human" : "bot",
      crawler: r.human ? null : "GPTBot",
      properties: { metric: r.metric, value: r.value },
    })
  );

/** Reporters by group value and metric: people with a number in the metric's range, counted up to 5. */
function naive(all: StoredEvent[], s: Scope, by: "path" | "device_type" | null) {
  const out = new Map<string, number>();
  const people = new Map<string, Set<string>>();
  for (const e of all) {
    if (e.received_at < s.from || e.received_at >= s.to || e.traffic !== "human") continue;
    const x = e.properties.value, max = e.properties.metric === "CLS" ? 100 : 600_000;
    if (typeof x !== "number" || x < 0 || x > max) continue;
    for (const g of by ? [String(e[by]), "(total)"] : ["(total)"]) {
      const k = `${g} ${e.properties.metric}`;
      if (!people.has(k)) people.set(k, new Set());
      people.get(k)!.add(e.anonymous_id);
    }
  }
  for (const [k, set] of people) out.set(k, Math.min(set.size, 5));
  return out;
}

const reportersOf = (r: ValueSeriesResult) => {
  const out = new Map<string, number>();
  for (const g of [r.total, ...r.groups]) {
    for (const [m, s] of Object.entries(g.series)) {
      if (s.reporters) out.set(`${g === r.total ? "(total)" : String(g.value)} ${m}`, s.reporters);
    }
  }
  return out;
};

Deno.test("vitals reporters: tables and scan count a series' people up to 5, as a plain count does", async () => {
  let fromTables = 0, atCut = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 20, maxLength: 80, size: "medium" }),
      fc.array(eventArb, { maxLength: 8 }),
      fc.constantFrom<"path" | "device_type" | null>("path", "device_type", null),
      fc.integer({ min: 0, max: 2 }),
      fc.integer({ min: 1, max: 4 }),
      async (parted, tail, by, fromDay, days) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        try {
          const a = toEvents(parted, (r) => BASE + r.hour * 3_600_000 + 1000 * r.visitor);
          await store(deps.kv, { events: a });
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          const b = toEvents(tail, (r) => NOW - 1 - r.hour * 1000);
          await store(deps.kv, { events: b });
          const from = BASE + fromDay * DAY;
          const scope: Scope = {
            org: "org1",
            env: "production",
            from,
            to: Math.min(NOW, from + days * DAY),
            timezone: "UTC",
            filters: [{ field: "event_type", op: "eq", value: "$web_vitals" }],
          };
          const o: ValueSeriesOptions = {
            by: by === "path" ? "page" : by ?? undefined,
            series: "metric",
            value: "value",
          };
          const want = naive([...a, ...b], scope, by);
          assert.deepEqual(reportersOf(await createEngine(deps).valueSeries(scope, o)), want, "scan");
          const got = await new VitalsSource(deps, new Source(deps), 1 << 20).answer(scope, o);
          assert.ok(got, "answered from the tables");
          fromTables++;
          assert.deepEqual(reportersOf(got), want, "tables");
          if ([...want.values()].includes(5)) atCut++;
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 30 },
  );
  assert.ok(atCut >= 5, `${atCut} of ${fromTables} with a series of 5 or more reporters`);
});
