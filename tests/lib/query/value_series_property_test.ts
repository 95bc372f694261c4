/**
 * The engine's numeric series (value counts per group and series, with rows and visitors) against a plain
 * count over the stored records: random web-vitals-like events with odd values (strings, missing, null),
 * answered from the raw tail, from parts, and with late rows in a raw tail over the parts. A Web Vitals value
 * outside its metric's range (docs/events.md) is no number. A series' reporters are the people whose numbers
 * count, counted up to 5.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { EventField, Scope, SeriesGroup, ValueSeriesResult } from "../../../lib/query/api.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-03T12:00:00Z");
const BASE = NOW - 6 * 86_400_000;

const eventArb = fc.record({
  minute: fc.integer({ min: 0, max: 5 * 24 * 60 }),
  visitor: fc.constantFrom("v1", "v2", "v3", "v4", "v5", "v6"),
  type: fc.constantFrom("$web_vitals", "$web_vitals", "$web_vitals", "$pageview"),
  page: fc.constantFrom("/", "/pricing", "/blog/a"),
  device: fc.constantFrom("desktop", "mobile"),
  traffic: fc.constantFrom("human", "human", "human", "bot"),
  metric: fc.constantFrom<unknown>("LCP", "INP", "CLS", "FID", undefined, null, 3),
  value: fc.oneof(
    fc.integer({ min: 0, max: 40 }).map((x) => x * 100),
    fc.integer({ min: 0, max: 30 }).map((x) => x / 100),
    fc.constantFrom<unknown>(undefined, null, "1200", true, -5),
  ),
});
type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function toEvents(raw: Ev[], offset: number): StoredEvent[] {
  return raw.map((r, i) => {
    const properties: Record<string, unknown> = {};
    if (r.metric !== undefined) properties.metric = r.metric;
    if (r.value !== undefined) properties.value = r.value;
    return ev({
      received_at: BASE + r.minute * 60_000 + 2 * i + offset,
      anonymous_id: r.visitor,
      session_id: `${r.visitor}-s`,
      event_type: r.type,
      path: r.page,
      screen: r.page,
      device_type: r.device as "desktop",
      traffic: r.traffic as "human",
      crawler: r.traffic === "human" ? null : "GPTBot",
      properties,
    });
  });
}

/** The same answer by plain loops: groups by `by`, series by the metric's JSON-free text, numbers only. */
function naive(all: StoredEvent[], scope: Scope, by: "path" | "device_type" | null): ValueSeriesResult {
  const rows = all.filter((e) =>
    e.received_at >= scope.from && e.received_at < scope.to && e.traffic === "human" &&
    e.event_type === "$web_vitals"
  );
  const group = (list: StoredEvent[], value: string | null): SeriesGroup => {
    const series: SeriesGroup["series"] = {};
    const names = new Set(list.map((e) => e.properties.metric).filter((m) => m !== undefined && m !== null));
    for (const name of names) {
      const of = list.filter((e) => e.properties.metric === name);
      const max = name === "CLS" ? 100 : name === "LCP" || name === "INP" ? 600_000 : Infinity;
      const nums = of.map((e) => e.properties.value)
        .filter((x): x is number => typeof x === "number" && (max === Infinity || (x >= 0 && x <= max)))
        .sort((a, b) => a - b);
      const counts: [number, number][] = [];
      for (const x of nums) {
        if (counts.length && counts[counts.length - 1][0] === x) counts[counts.length - 1][1]++;
        else counts.push([x, 1]);
      }
      // reporters: people whose numbers count, counted up to 5
      const people = new Set(
        of.filter((e) => {
          const x = e.properties.value;
          return typeof x === "number" && (max === Infinity || (x >= 0 && x <= max));
        }).map((e) => e.anonymous_id),
      );
      series[String(name)] = {
        rows: of.length,
        reporters: Math.min(people.size, 5),
        counts: {
          values: Float64Array.from(counts, (c) => c[0]),
          counts: Float64Array.from(counts, (c) => c[1]),
        },
      };
    }
    return { value, rows: list.length, visitors: new Set(list.map((e) => e.anonymous_id)).size, series };
  };
  const values = by ? [...new Set(rows.map((e) => e[by]))] : [];
  return {
    total: group(rows, null),
    groups: values.map((v) => group(rows.filter((e) => e[by!] === v), v)),
  };
}

const sorted = (r: ValueSeriesResult) => ({
  total: r.total,
  groups: [...r.groups].sort((a, b) => String(a.value) < String(b.value) ? -1 : 1),
});

Deno.test("value series: raw, compacted and late-arrival answers equal a plain count over the records", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 50 }),
      fc.array(eventArb, { maxLength: 12 }),
      fc.constantFrom<"path" | "device_type" | null>("path", "device_type", null),
      fc.integer({ min: 0, max: 3 }),
      async (first, late, by, fromDay) => {
        const deps = await testDeps();
        deps.clock.set(NOW);
        const engine = createEngine(deps);
        const scope: Scope = {
          org: "org1",
          env: "production",
          from: BASE + fromDay * 86_400_000,
          to: NOW,
          timezone: "UTC",
          filters: [{ field: "event_type", op: "eq", value: "$web_vitals" }],
        };
        const field = by === "path" ? "page" : by ?? undefined;
        const ask = async () =>
          sorted(
            await engine.valueSeries(scope, { by: field as EventField, series: "metric", value: "value" }),
          );
        try {
          const a = toEvents(first, 0);
          await store(deps.kv, { events: a });
          assert.deepEqual(await ask(), sorted(naive(a, scope, by))); // raw tail only
          await compact(deps, "org1", "production", "ev", { graceMs: 0 });
          assert.deepEqual(await ask(), sorted(naive(a, scope, by))); // parts only
          const b = toEvents(late, 1);
          await store(deps.kv, { events: b });
          assert.deepEqual(await ask(), sorted(naive([...a, ...b], scope, by))); // parts + raw tail
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 40 },
  );
});
