/** Given turns (compaction), the builders give the event loop a turn per column and build exactly the same. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { buildEventBatch, reconstructEvents } from "../../../lib/parts/event_batch.ts";
import { buildHitBatch, reconstructHits } from "../../../lib/parts/hit_batch.ts";
import { encodeBatch } from "../../../lib/parts/codec.ts";
import { ev, hit } from "../query/fixtures.ts";

const T = Date.parse("2026-11-20T12:00:00Z");
// Made once (the fixtures number ids as they go), copied for each build (builders sort in place).
const EVENTS = Array.from({ length: 4500 }, (_, i) =>
  ev({
    received_at: T + i * 1000,
    anonymous_id: `v${i % 97}`,
    session_id: `s${i % 211}`,
    path: `/p${i % 13}`,
    properties: { path: `/p${i % 13}`, n: i, ...(i % 7 ? {} : { rare: "x" }) },
  }));
const events = () => structuredClone(EVENTS);
const HITS = Array.from({ length: 4500 }, (_, i) => hit({ timestamp: T + i * 1000, path: `/h${i % 17}` }));
const hits = () => structuredClone(HITS);

// Batches are compared by their stored bytes, as a hex digest: a failing deepEqual on 100 kB of bytes
// would try to print their diff.
const blob = async (b: Parameters<typeof encodeBatch>[0]) => digest((await encodeBatch(b)).blob);
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function counting() {
  let n = 0;
  return { turn: () => (n++, Promise.resolve()), count: () => n };
}

Deno.test("parts batch: events build the same batch, turns inside and after every column; reconstruct gives a turn per 2,048 rows", async () => {
  const plain = await buildEventBatch(events());
  const c = counting();
  const sliced = await buildEventBatch(events(), c.turn);
  assert.equal(await blob(sliced), await blob(plain));
  // inside each column every 2,048 rows (two for 4,500 rows), and after it; and while property names are
  // counted and while their values are read, every 2,048 rows
  assert.equal(c.count(), 3 * Object.keys(plain.cols).length + 2 * Math.floor(4500 / 2048));
  const r = counting();
  assert.deepEqual(
    await reconstructEvents(sliced, "org1", "production", r.turn),
    await reconstructEvents(plain, "org1", "production"),
  );
  assert.equal(r.count(), Math.ceil(4500 / 2048));
  const e = counting();
  assert.equal(digest((await encodeBatch(plain, e.turn)).blob), await blob(plain));
  assert.equal(e.count(), Object.keys(plain.cols).length);
});

Deno.test("parts batch: hits build the same batch and reconstruct the same records", async () => {
  const outcome = () => "verified" as const;
  const plain = await buildHitBatch(hits(), outcome);
  const c = counting();
  const sliced = await buildHitBatch(hits(), outcome, c.turn);
  assert.equal(await blob(sliced), await blob(plain));
  assert.equal(c.count(), 3 * Object.keys(plain.cols).length);
  const r = counting();
  assert.deepEqual(
    await reconstructHits(sliced, "org1", "production", r.turn),
    await reconstructHits(plain, "org1", "production"),
  );
  assert.equal(r.count(), 3);
});

Deno.test("parts batch: a string column of a long dictionary gives turns while its JSON is made, and the same bytes", async () => {
  // 300 entries of 90 quoted 190-character names (a leftover-properties column of an adversarial batch):
  // ~5.5M characters of JSON, written in one stretch before; the bytes are still its JSON.stringify
  const dict = Array.from(
    { length: 300 },
    (_, r) =>
      JSON.stringify(
        Object.fromEntries(Array.from({ length: 90 }, (_, k) => ["中".repeat(185) + `z${r}_${k}`, k])),
      ),
  );
  const codes = Uint16Array.from({ length: 600 }, (_, i) => 1 + (i % 300));
  const batch = { n: 600, cols: { "p*": { kind: "str" as const, dict, codes } } };
  const c = counting();
  const sliced = await encodeBatch(batch, c.turn);
  assert.equal(digest(sliced.blob), await blob(batch));
  assert.ok(c.count() >= 10, `${c.count()} turns`);
  const { inflateRawSync } = await import("node:zlib");
  const raw = new Uint8Array(inflateRawSync(sliced.blob.subarray(0, sliced.columns[0].len)));
  const len = new DataView(raw.buffer, raw.byteOffset).getUint32(0, true);
  assert.equal(digest(raw.subarray(4, 4 + len)), digest(new TextEncoder().encode(JSON.stringify(dict))));
});
