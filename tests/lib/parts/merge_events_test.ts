import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeBatch, encodeBatch } from "../../../lib/parts/codec.ts";
import { buildEventBatch, reconstructEvents } from "../../../lib/parts/event_batch.ts";
import { mergeable, mergeEventBatches } from "../../../lib/parts/merge_events.ts";
import type { Batch } from "../../../lib/parts/columns.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "../query/fixtures.ts";

const T = Date.parse("2026-11-20T10:00:00Z");
const LONG = "n".repeat(201); // too long for a column of its own: always in the rest column

/** A part's batch as a reader gets it: built, encoded, decoded. */
async function stored(events: StoredEvent[]): Promise<Batch> {
  const e = await encodeBatch(await buildEventBatch([...events]));
  return await decodeBatch(e, e.blob);
}

/** The record path: every part's records, part after part, built into one batch. */
async function viaRecords(parts: Batch[]): Promise<Batch> {
  const records: StoredEvent[] = [];
  for (const b of parts) records.push(...await reconstructEvents(b, "org1", "production"));
  return await buildEventBatch(records);
}

async function assertSameBytes(parts: Batch[]) {
  assert.ok(mergeable(parts));
  const [a, b] = [
    await encodeBatch(await mergeEventBatches(parts)),
    await encodeBatch(await viaRecords(parts)),
  ];
  assert.deepEqual(a.columns, b.columns);
  assert.deepEqual(a.blob, b.blob);
}

const event = fc.record({
  dt: fc.integer({ min: 0, max: 50 }),
  skew: fc.integer({ min: -3, max: 3 }),
  anon: fc.constantFrom("a", "b", "c", "é", "B"),
  session: fc.constantFrom("s1", "s2", "S3"),
  seq: fc.integer({ min: 0, max: 4 }),
  // names of every frequency, so the own columns of a merge differ from its parts' (at most 64 each)
  props: fc.dictionary(
    fc.oneof(
      fc.constantFrom("plan", "amount", "__x", "1", "10", LONG),
      fc.integer({ min: 0, max: 90 }).map((k) => `k${k}`),
    ),
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer()), fc.double()),
    { maxKeys: 12 },
  ),
  utm: fc.option(fc.record({ source: fc.string(), medium: fc.constant(null) })),
  fp: fc.option(fc.record({ tag: fc.constantFrom("a", "button"), text: fc.string() })),
  odd: fc.boolean(),
  part: fc.integer({ min: 0, max: 4 }),
});

Deno.test("merged parts: the same bytes as their records built into one part", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(event, { maxLength: 120 }), async (rows) => {
      const parts: StoredEvent[][] = [[], [], [], [], []];
      rows.forEach((r, i) =>
        parts[r.part].push(ev({
          id: `e${(i * 7919) % 1000}`,
          received_at: T + r.dt,
          device_time: r.odd ? "2026-11-20T11:00:00+01:00" : new Date(T + r.dt + r.skew).toISOString(),
          anonymous_id: r.anon,
          session_id: r.session,
          sequence_no: r.seq,
          properties: r.props,
          utm: r.utm as StoredEvent["utm"],
          fingerprint: r.fp as StoredEvent["fingerprint"],
          context: r.odd ? { language: "de" } : {},
          geo: { country: r.odd ? "DE" : null, city: null, asn: r.odd ? 3320 : null, as_org: null },
          user_id: r.odd ? `u${r.dt}` : null,
          path: `/p${r.dt % 5}`,
        }))
      );
      await assertSameBytes(await Promise.all(parts.filter((p) => p.length).map(stored)));
    }),
    { numRuns: 150 },
  );
});

Deno.test("merged parts: more than 64 property names over the parts; names lose and gain their column", async () => {
  // part one: 64 names once each; part two: 10 other names on every row, so they take columns and some of
  // part one's move to the rest column (ties by name)
  const one = [
    ev({
      received_at: T,
      properties: Object.fromEntries(Array.from({ length: 70 }, (_, k) => [`a${k}`, k])),
    }),
  ];
  const two = Array.from({ length: 5 }, (_, i) =>
    ev({
      received_at: T + i,
      anonymous_id: "z",
      properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`b${k}`, { i, k }])),
    }));
  const parts = [await stored(one), await stored(two)];
  await assertSameBytes(parts);
  const merged = await mergeEventBatches(parts);
  const own = Object.keys(merged.cols).filter((c) => c.startsWith("p:"));
  assert.equal(own.length, 64);
  assert.ok(own.includes("p:b0") && !own.includes("p:a9"));
  const back = await reconstructEvents(merged, "org1", "production");
  assert.deepEqual(back.find((e) => e.anonymous_id === "a1")!.properties, one[0].properties);
});

Deno.test("merged parts: a dictionary past 65,535 entries (32-bit codes) comes out as the record path's", async () => {
  const part = (from: number) =>
    Array.from(
      { length: 35_000 },
      (_, i) =>
        ev({
          id: `id-${from + i}`,
          received_at: T + i,
          anonymous_id: `v${(from + i) % 5000}`,
          session_id: `s${i % 7}`,
        }),
    );
  await assertSameBytes([await stored(part(0)), await stored(part(35_000))]);
});
