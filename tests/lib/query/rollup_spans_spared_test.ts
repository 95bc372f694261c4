/**
 * A period's spans are read to count its session totals, which are then kept (plain_answers.ts). Since
 * cc0f559 each window of spans is added to the totals and let go at once, so the spans never sit in the share
 * at all (before a6bd450 they stayed and kept warm rows out; then they were the first pieces to make room).
 * With a share just large enough for what warm asks of a trend read (its field's rows, the kept totals and
 * unions), what a cold ask read must not keep those rows out: before, the next 16 questions' rows found the
 * share full and were read from KV again each ask (at 10M events the first ~6 warm trends asks re-read ~100
 * parts' rows). Answers equal the reference.
 */
import assert from "node:assert/strict";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { RollupSource } from "../../../lib/query/rollup/source.ts";
import type { StoredEvent } from "../../../lib/store/records.ts";
import { ev } from "./fixtures.ts";
import { DAY, expected, HOUR, MINUTE, openSite, type Site } from "./rollup_site.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const START = NOW - 6 * DAY;

/** Sessions of 60 visitors over six days, some crossing midnight (joined from two parts). */
function events(): StoredEvent[] {
  const out: StoredEvent[] = [];
  let n = 0;
  for (let v = 0; v < 60; v++) {
    for (let s = 0; s < 4; s++) {
      const at = START + ((v * 7919 + s * 104_729) % (5 * 24 * 60)) * MINUTE +
        (v % 3 === 0 ? 23 * HOUR + 50 * MINUTE : 0);
      for (let e = 0; e < 3 + (v % 4); e++) {
        out.push(ev({
          id: `x${n++}`,
          received_at: at + e * 7 * MINUTE,
          anonymous_id: `v${v}`,
          session_id: `s${v}-${s}`,
          event_type: e % 3 === 2 ? "$pageleave" : "$pageview",
          path: `/p${(v + e) % 5}`,
        }));
      }
    }
  }
  return out;
}

const scope: Scope = {
  org: "org1",
  env: "production",
  from: NOW - 7 * DAY,
  to: NOW,
  timezone: "UTC",
  filters: [{ field: "event_type", op: "eq", value: "$pageview" }],
};
// a trend's questions, asked one by one as behavior_trends asks them
const questions: AggregateOptions[] = [
  { metrics: ["visitors", "events", "sessions"] },
  { metrics: ["visitors"], bucket: "day" },
];

/** Bytes read from KV by each of `asks` asks (cold first) of a fresh reader with `bytes` of share. */
async function readsPerAsk(site: Site, bytes: number, asks: number): Promise<number[]> {
  const rollups = new RollupSource(site.deps, new Source(site.deps), bytes);
  const out: number[] = [];
  for (let a = 0; a < asks; a++) {
    const before = rollups.bytesRead;
    for (const o of questions) {
      const [got] = await rollups.answer(scope, [o]);
      assert.ok(got, "answered from rollups");
      assert.deepEqual(got, expected(site, scope, o));
    }
    out.push(rollups.bytesRead - before);
  }
  return out;
}

Deno.test("rollup spans: once a period's totals are kept, a cold ask's spans do not keep warm asks' rows out", async () => {
  const site = await openSite(NOW);
  try {
    await site.add(events());
    await site.compact();
    const n = (await site.parts()).length;
    assert.ok(n >= 3, `${n} parts`);
    // the smallest share whose asks settle (the 12th reads nothing): found by halving
    let lo = 1_000, hi = 64 << 20;
    assert.equal((await readsPerAsk(site, hi, 12))[11], 0);
    while (hi - lo > 256) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await readsPerAsk(site, mid, 12))[11] === 0) hi = mid;
      else lo = mid;
    }
    const reads = await readsPerAsk(site, hi, 12);
    assert.ok(reads[0] > 0, "the cold ask reads");
    // the first warm ask may read what the cold one found no room for; from the second on, nothing
    assert.deepEqual(reads.slice(2), reads.slice(2).map(() => 0), `bytes read per ask: ${reads}`);
  } finally {
    await site.close();
  }
});
