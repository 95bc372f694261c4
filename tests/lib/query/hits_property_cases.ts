/** Crawler-hit answers against the reference computation: raw, compacted, with outcomes arriving late. */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createEngine } from "../../../lib/query/api.ts";
import type { Filter, HitAggregateOptions, HitField, HitScope } from "../../../lib/query/api.ts";
import { naiveHitsAggregate } from "./reference.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredHit, Verification } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { hit, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;

const hitArb = fc.record({
  minute: fc.integer({ min: 0, max: 6 * 24 * 60 }),
  crawler: fc.constantFrom(["GPTBot", "OpenAI", "ai_training"], ["Googlebot", "Google", "search_engine"], [
    "ClaudeBot",
    "Anthropic",
    "ai_training",
  ]),
  path: fc.constantFrom("/", "/pricing", "/robots.txt", "/blog/a"),
  status: fc.constantFrom(200, 304, 404, 503, null),
  method: fc.constantFrom("GET", "GET", "HEAD"),
  verification: fc.constantFrom<Verification>("pending", "verified", "spoofed", "unverifiable"),
  later: fc.option(fc.constantFrom<Verification>("verified", "spoofed")),
  host: fc.constantFrom("acme.test", "blog.acme.test"),
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
  "host",
  "country",
  "vendor",
  "status",
  "via",
  "touchpoint",
);
const queryArb = fc.record({
  breakdown: fc.array(fieldArb, { maxLength: 2 }),
  filters: fc.array(
    fc.record({
      field: fieldArb,
      op: fc.constantFrom("eq", "neq", "contains", "in") as fc.Arbitrary<Filter["op"]>,
      value: fc.constantFrom<string | string[]>(
        "spoofed",
        "/pricing",
        "GPTBot",
        "2xx",
        "true",
        ["verified", "unverifiable"],
        "blog",
        "DE",
        "open",
        "404",
        "web",
        "tp2",
        "bot",
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
  days: fc.integer({ min: 1, max: 7 }),
});

function toHits(raw: H[]): StoredHit[] {
  return raw.map((r, i) => {
    const siteFile = r.path === "/robots.txt" ? "robots.txt" as const : null;
    const t = NOW - 7 * DAY + r.minute * 60_000 + i;
    return hit({
      timestamp: t,
      received_at: t + 300,
      crawler: r.crawler[0],
      vendor: r.crawler[1],
      category: r.crawler[2] as StoredHit["category"],
      path: r.path,
      status: r.status,
      method: r.method,
      site_file: siteFile,
      crawled: r.method === "GET" && (r.status === null || r.status === 200 || r.status === 304),
      verification: r.verification,
      host: r.host,
      geo: { country: r.country, city: null, asn: null, as_org: null },
      via: r.via as StoredHit["via"],
      touchpoint: r.tp,
    });
  });
}

Deno.test("query property: crawler-hit answers equal the reference before and after compaction and late outcomes", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(hitArb, { minLength: 1, maxLength: 50 }), queryArb, async (raw, q) => {
      const deps = await testDeps();
      deps.clock.set(NOW);
      try {
        const hits = toHits(raw);
        await store(deps.kv, { hits });
        const outcomes = new Map<string, Verification>();
        const scope: HitScope = {
          org: "org1",
          env: "production",
          from: NOW - q.days * DAY,
          to: NOW,
          timezone: "Europe/Berlin",
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
          breakdown: q.breakdown,
          bucket: q.bucket,
        };
        const check = async () =>
          assert.deepEqual(
            await createEngine(deps).hitsAggregate(scope, opts),
            naiveHitsAggregate(hits, outcomes, scope, opts),
          );
        await check();
        await compact(deps, "org1", "production", "hit", { graceMs: 0 });
        await check();
        for (const [i, r] of raw.entries()) {
          if (!r.later || hits[i].verification !== "pending") continue; // a check decides pending hits only
          outcomes.set(hits[i].id, r.later);
          await deps.kv.set(keys.verification("org1", hits[i].id), {
            outcome: r.later,
            method: "ip_list",
            reason: "",
            checked_at: NOW,
          });
        }
        await check();
      } finally {
        deps.kv.close();
      }
    }),
    { numRuns: 30 },
  );
});
