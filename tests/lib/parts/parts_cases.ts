import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ColumnEntry,
  compress,
  decodeBatch,
  decompress,
  encodeBatch,
  type EncodedBatch,
} from "../../../lib/parts/codec.ts";
import { buildEventBatch, reconstructEvents, sortEvents } from "../../../lib/parts/event_batch.ts";
import { buildHitBatch, reconstructHits } from "../../../lib/parts/hit_batch.ts";
import { CHUNK_BYTES, readBlob, writeChunks } from "../../../lib/parts/store.ts";
import { keys } from "../../../lib/store/keys.ts";
import { ev, hit } from "../query/fixtures.ts";

const T = Date.parse("2026-11-20T10:00:00Z");

/** The same batch in the older layout: every column in one deflated segment, 8-byte aligned inside it. */
async function sharedSegment(e: EncodedBatch): Promise<[EncodedBatch, Uint8Array]> {
  const raws = await Promise.all(e.columns.map(async (c) => {
    const bytes = e.blob.subarray(c.off, c.off + c.len);
    return c.stored ? bytes : await decompress(bytes);
  }));
  const size = raws.reduce((n, r) => n + r.length + ((8 - (r.length % 8)) % 8), 0);
  const seg = new Uint8Array(size);
  let at = 0;
  const columns = e.columns.map((c, k) => {
    seg.set(raws[k], at);
    const entry: ColumnEntry = { ...c, at, stored: undefined };
    at += raws[k].length + ((8 - (raws[k].length % 8)) % 8);
    return entry;
  });
  const blob = await compress(seg);
  for (const c of columns) Object.assign(c, { off: 0, len: blob.length });
  return [{ n: e.n, columns, blob }, blob];
}

Deno.test("parts: events survive build, encode, decode and reconstruct unchanged", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          dt: fc.integer({ min: 0, max: 10_000 }),
          anon: fc.constantFrom("a", "b", "c"),
          props: fc.dictionary(
            fc.constantFrom("plan", "amount", "depth_percent", "x"),
            fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer())),
          ),
          country: fc.constantFrom("DE", null),
          utm: fc.option(
            fc.record({
              source: fc.string(),
              medium: fc.constant(null),
              campaign: fc.string(),
              term: fc.constant(null),
              content: fc.constant(null),
            }),
          ),
          user: fc.option(fc.string()),
          odd: fc.boolean(),
        }),
        { maxLength: 40 },
      ),
      async (rows) => {
        const events = rows.map((r, i) =>
          ev({
            received_at: T + r.dt,
            anonymous_id: r.anon,
            session_id: `s${i % 3}`,
            properties: r.props,
            geo: { country: r.country, city: null, asn: r.odd ? 3320 : null, as_org: null },
            utm: r.utm,
            user_id: r.user,
            device_time: r.odd ? "2026-11-20T11:00:00+01:00" : new Date(T + r.dt).toISOString(),
            fingerprint: r.odd ? { tag: "button", selector: "#buy", text: "Buy" } : null,
            context: r.odd ? { language: "de" } : {},
          })
        );
        const encoded = await encodeBatch(await buildEventBatch([...events]));
        const expected = JSON.parse(JSON.stringify(sortEvents([...events])));
        // compare as plain JSON values (the generator's objects have no prototype)
        for (const [e, blob] of [[encoded, encoded.blob], await sharedSegment(encoded)] as const) {
          const back = await reconstructEvents(await decodeBatch(e, blob), "org1", "production");
          assert.deepEqual(JSON.parse(JSON.stringify(back)), expected);
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("parts: hits survive the round trip, with the verification outcome given at build time", async () => {
  const hits = [
    hit({ timestamp: T, status: null }),
    hit({ timestamp: T - 5, site_file: "robots.txt", crawled: false, verification: "pending" }),
  ];
  const encoded = await encodeBatch(
    await buildHitBatch([...hits], (h) => (h.verification === "pending" ? "spoofed" : h.verification)),
  );
  const back = await reconstructHits(await decodeBatch(encoded, encoded.blob), "org1", "production");
  assert.deepEqual(back, [{ ...hits[1], verification: "spoofed" }, hits[0]]);
});

Deno.test("parts: a large blob is split into chunks under KV's 64 KiB value limit and read back whole", async () => {
  const kv = await Deno.openKv(":memory:");
  const blob = Uint8Array.from({ length: CHUNK_BYTES * 3 + 123 }, (_, i) => (i * 7919) % 251);
  const chunks = await writeChunks(kv, "p1", blob);
  assert.equal(chunks, 4);
  for await (const e of kv.list<Uint8Array>({ prefix: keys.partChunks("p1") })) {
    assert.ok(e.value.length <= 65_536);
  }
  assert.deepEqual(await readBlob(kv, { id: "p1", chunks, bytes: blob.length }), blob);
  kv.close();
});
