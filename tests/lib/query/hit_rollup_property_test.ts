/**
 * Crawler-hit answers through the planner (hit rollups where whole hours allow, scans elsewhere) against the
 * reference over random hits: compacted parts with rollups, late arrivals in compacted days (their own parts,
 * then merges), a part whose rollup is missing (written before rollups), rollups of version 1 (hourly rows
 * only) read as they are or backfilled to the current version, rollups of version 2 (one blob, merged rows
 * after the hourly ones) read as they are, version 3 (the merged rows and hour ranges a section of their own,
 * the hourly rows read only when a period cuts the part or a bucket splits it), a raw tail, outcomes of pending
 * verifications stored after compaction, periods cut inside hours, DST changes (Berlin, New York) and a
 * +05:45 zone, filters, breakdowns and buckets.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { Filter, HitAggregateOptions, HitField, HitScope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { answerHits, type HitPath } from "../../../lib/query/hits.ts";
import { HitRollups } from "../../../lib/query/hit_rollup/source.ts";
import { type HitRollup, mergeHours } from "../../../lib/query/hit_rollup/build.ts";
import { deleteHitRollup, readHitRollup, writeHitRollup } from "../../../lib/query/hit_rollup/store.ts";
import { backfillHitRollups } from "../../../lib/jobs/hit_rollup_backfill.ts";
import { listParts } from "../../../lib/parts/store.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredHit, Verification } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveHitsAggregate } from "./reference.ts";
import { hit, store } from "./fixtures.ts";

// a week that holds the autumn clock changes of Europe (25 Oct) and the US (1 Nov)
const NOW = Date.parse("2026-11-03T12:00:00Z");
const DAY = 86_400_000;
const SPAN_MIN = 10 * 24 * 60;
/** minutes from the start where busy hours begin */
const BUSY = [3 * 24 * 60, 7 * 24 * 60 + 6 * 60]; // 27 Oct 12:00Z; 31 Oct 18:00Z (Kathmandu midnight at 18:15)

const hitArb = fc.record({
  // a third of the hits in two busy hours, so periods cut inside an hour find hits on both sides
  minute: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: SPAN_MIN }), weight: 2 },
    { arbitrary: fc.integer({ min: BUSY[0], max: BUSY[0] + 59 }), weight: 1 },
    { arbitrary: fc.integer({ min: BUSY[1], max: BUSY[1] + 59 }), weight: 1 },
  ),
  second: fc.integer({ min: 0, max: 59_999 }),
  crawler: fc.constantFrom(["GPTBot", "OpenAI", "ai_training"], ["Googlebot", "Google", "search_engine"], [
    "ClaudeBot",
    "Anthropic",
    "ai_training",
  ]),
  path: fc.constantFrom("/", "/pricing", "/robots.txt", "/blog/a"),
  status: fc.constantFrom(200, 304, 404, 503, null),
  method: fc.constantFrom("GET", "GET", "HEAD"),
  verification: fc.constantFrom<Verification>("pending", "verified", "spoofed", "unverifiable"),
  later: fc.option(fc.constantFrom<Verification>("verified", "spoofed", "unverifiable")),
  country: fc.constantFrom("US", "DE", null),
  via: fc.constantFrom("server", "web"),
  tp: fc.constantFrom("tp1", "tp2"),
});
type H = typeof hitArb extends fc.Arbitrary<infer T> ? T : never;

const fieldArb = fc.constantFrom<HitField>(
  "page",
  "crawler",
  "category",
  "verification",
  "status_class",
  "site_file",
  "crawled",
  "method",
  "country",
  "vendor",
  "status",
  "via",
  "touchpoint",
);
const queryArb = fc.record({
  breakdown: fc.array(fieldArb, { maxLength: 3 }),
  filters: fc.array(
    fc.record({
      field: fieldArb,
      op: fc.constantFrom("eq", "neq", "contains", "in", "prefix") as fc.Arbitrary<Filter["op"]>,
      value: fc.constantFrom<string | string[]>(
        "spoofed",
        "/pricing",
        "GPTBot",
        "2xx",
        "true",
        ["verified", "unverifiable"],
        "blog",
        "DE",
        "404",
        "web",
        "tp2",
        "/",
      ),
    }),
    { maxLength: 2 },
  ),
  bucket: fc.constantFrom(
    undefined,
    "day",
    "hour",
    "week",
    "month",
    "hour_of_day",
    "day_of_week",
  ) as fc.Arbitrary<
    HitAggregateOptions["bucket"]
  >,
  timezone: fc.constantFrom("Europe/Berlin", "America/New_York", "Asia/Kathmandu", "UTC"),
  // period: start minute and length (whole hours or cut inside one), or up to now
  fromMinute: fc.oneof(
    fc.integer({ min: -60, max: SPAN_MIN }),
    fc.integer({ min: BUSY[0] + 1, max: BUSY[0] + 58 }),
  ),
  lengthMinutes: fc.option(
    fc.oneof(fc.integer({ min: 1, max: SPAN_MIN }), fc.integer({ min: 1, max: 120 })),
  ),
  wholeHours: fc.boolean(),
  touchpoint: fc.constantFrom(undefined, "tp1"),
  limit: fc.option(fc.integer({ min: 1, max: 5 })),
});

const START = NOW - 10 * DAY;

const plainRows = (r: HitRollup) => ({
  n: r.n,
  hours: r.hours,
  codes: r.codes.map((c) => Array.from(c)),
  hour: Array.from(r.hour),
  requests: Array.from(r.requests),
  minT: Array.from(r.minT),
  maxT: Array.from(r.maxT),
  pendRow: Array.from(r.pendRow),
  pendId: r.pendId,
});

function toHits(raw: H[], tag: string, receivedLate: number): StoredHit[] {
  return raw.map((r, i) => {
    const t = START + r.minute * 60_000 + (r.second % 60_000);
    return hit({
      id: `${tag}-${i}-${r.minute}-${r.second}`,
      timestamp: Math.min(t, NOW - 1),
      received_at: Math.min(t + receivedLate, NOW - 1),
      crawler: r.crawler[0],
      vendor: r.crawler[1],
      category: r.crawler[2] as StoredHit["category"],
      path: r.path,
      status: r.status,
      method: r.method,
      site_file: r.path === "/robots.txt" ? "robots.txt" : null,
      crawled: r.method === "GET" && (r.status === null || r.status === 200 || r.status === 304),
      verification: r.verification,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      via: r.via as StoredHit["via"],
      touchpoint: r.tp,
    });
  });
}

Deno.test("hit rollups property: planned answers (rollups, cut hours scanned, raw tail) equal the reference", async () => {
  let fromRollups = 0, cutScanned = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(hitArb, { minLength: 1, maxLength: 60 }),
      fc.array(hitArb, { maxLength: 20 }),
      fc.array(hitArb, { maxLength: 15 }),
      fc.constantFrom("kept", "one dropped", "version 1", "version 1 backfilled", "version 2"),
      fc.array(queryArb, { minLength: 1, maxLength: 4 }),
      async (first, late, tail, older, queries) => {
        const deps = await testDeps();
        try {
          deps.clock.set(NOW);
          const compacted = toHits(first, "a", 500);
          await store(deps.kv, { hits: compacted });
          await compact(deps, "org1", "production", "hit", { graceMs: 0 });
          // late arrivals: received now, placed in days already compacted
          const lateHits = toHits(late, "b", 0).map((h) => ({ ...h, received_at: NOW - 2 }));
          await store(deps.kv, { hits: lateHits });
          await compact(deps, "org1", "production", "hit", { graceMs: 0 });
          const parts = await listParts(deps.kv, "org1", "production", "hit");
          if (older === "one dropped" && parts.length) await deps.kv.delete(keys.hitRollup(parts[0].meta.id));
          if (older.startsWith("version 1")) {
            // as version 1 stored them: hourly rows only (questions merge their hours when decoding)
            for (const p of parts) {
              const { r } = (await readHitRollup(deps.kv, p.meta.id))!;
              await deleteHitRollup(deps.kv, p.meta.id);
              await writeHitRollup(deps.kv, p.meta.id, r, null);
            }
          }
          if (older === "version 2") {
            for (const p of parts) {
              const { r } = (await readHitRollup(deps.kv, p.meta.id))!;
              await deleteHitRollup(deps.kv, p.meta.id);
              await writeHitRollup(deps.kv, p.meta.id, r, mergeHours(r), 2);
            }
          }
          if (older === "version 1 backfilled") {
            const done = await backfillHitRollups(deps, "org1", "production");
            assert.deepEqual(done, { parts: parts.length, remaining: 0, fromRollup: parts.length });
          }
          // every rollup of version 2 on holds its hourly rows' merge
          for (const p of parts) {
            const got = await readHitRollup(deps.kv, p.meta.id);
            if (!got || got.v < 2) continue;
            assert.ok(got.whole, "version 2 on stores the merged rows");
            assert.deepEqual(plainRows(got.whole), plainRows(mergeHours(got.r)));
          }
          // the raw tail: not compacted
          const tailHits = toHits(tail, "c", 0).map((h) => ({ ...h, received_at: NOW - 1 }));
          await store(deps.kv, { hits: tailHits });
          const all = [...compacted, ...lateHits, ...tailHits];
          // outcomes of pending checks arriving after compaction
          const outcomes = new Map<string, Verification>();
          for (const [i, r] of [...first, ...late, ...tail].entries()) {
            if (!r.later || all[i].verification !== "pending") continue;
            outcomes.set(all[i].id, r.later);
            await deps.kv.set(keys.verification("org1", all[i].id), {
              outcome: r.later,
              method: "ip_list",
              reason: "",
              checked_at: NOW,
            });
          }
          const source = new Source(deps);
          const rollups = new HitRollups(deps.kv, 1 << 24);
          const engine = createEngine(deps);
          for (const q of queries) {
            let from = START + q.fromMinute * 60_000;
            if (q.wholeHours) from = Math.floor(from / 3_600_000) * 3_600_000;
            let to = q.lengthMinutes === null ? NOW : from + q.lengthMinutes * 60_000;
            if (q.wholeHours && q.lengthMinutes !== null) to = Math.ceil(to / 3_600_000) * 3_600_000;
            const scope: HitScope = {
              org: "org1",
              env: "production",
              touchpoint: q.touchpoint,
              from,
              to,
              timezone: q.timezone,
              filters: q.filters as Filter<HitField>[],
            };
            const opts: HitAggregateOptions = {
              metrics: [
                "requests",
                "crawled_requests",
                "pages",
                "last_crawl_at",
                "first_seen_at",
                "last_seen_at",
              ],
              breakdown: [...new Set(q.breakdown)],
              bucket: q.bucket,
              limit: q.limit ?? undefined,
            };
            const want = naiveHitsAggregate(all, outcomes, scope, opts);
            const path: HitPath = { rollups: 0, scannedRanges: [] };
            assert.deepEqual(await answerHits(source, rollups, scope, opts, path), want);
            assert.deepEqual(await engine.hitsAggregate(scope, opts), want);
            if (path.rollups) fromRollups++;
            if (path.scannedRanges.length) cutScanned++;
          }
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 40 },
  );
  // both paths were exercised
  assert.ok(fromRollups > 10, `questions answered with rollups: ${fromRollups}`);
  assert.ok(cutScanned > 5, `questions with scanned hours: ${cutScanned}`);
});
