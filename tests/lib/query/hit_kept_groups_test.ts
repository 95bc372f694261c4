/**
 * A hit question's groups from rollups are kept by question and rows taken (lib/query/hits.ts) and reused by
 * later asks. Property: one engine asked again and again while things change between asks (outcomes of
 * pending verifications stored, hits landing in the raw tail, the period's end moving, another page or sort
 * of the same question, the same question under other filters or breakdowns) answers as the reference each
 * time, and a repeated question is answered from its kept groups.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { HitAggregateOptions, HitScope } from "../../../lib/query/api.ts";
import { Source } from "../../../lib/query/columns/source.ts";
import { answerHits, type HitPath } from "../../../lib/query/hits.ts";
import { HitRollups } from "../../../lib/query/hit_rollup/source.ts";
import { HitGroups } from "../../../lib/query/hit_rollup/groups.ts";
import { compact } from "../../../lib/jobs/compact.ts";
import { keys } from "../../../lib/store/keys.ts";
import type { StoredHit, Verification } from "../../../lib/store/records.ts";
import { testDeps } from "../../helpers/deps.ts";
import { naiveHitsAggregate } from "./reference.ts";
import { hit, store } from "./fixtures.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const DAY = 86_400_000;
const START = NOW - 5 * DAY;

const hitArb = fc.record({
  minute: fc.integer({ min: 0, max: 5 * 24 * 60 - 30 }),
  crawler: fc.constantFrom(["GPTBot", "OpenAI", "ai_training"], ["Googlebot", "Google", "search_engine"]),
  path: fc.constantFrom("/", "/pricing", "/robots.txt"),
  status: fc.constantFrom(200, 404),
  verification: fc.constantFrom<Verification>("pending", "pending", "verified", "spoofed"),
});
type H = typeof hitArb extends fc.Arbitrary<infer T> ? T : never;

const QUESTIONS: { filters: HitScope["filters"]; opts: HitAggregateOptions }[] = [
  {
    filters: [{ field: "verification", op: "neq", value: "spoofed" }],
    opts: { metrics: ["requests", "pages", "last_crawl_at"], breakdown: ["crawler", "vendor", "category"] },
  },
  {
    filters: [{ field: "verification", op: "eq", value: "verified" }],
    opts: { metrics: ["pages", "requests"], breakdown: ["crawler", "category", "page"] },
  },
  {
    filters: [],
    opts: {
      metrics: ["crawled_requests", "first_seen_at"],
      breakdown: ["vendor", "category", "page", "site_file"],
    },
  },
  {
    filters: [{ field: "verification", op: "in", value: ["verified", "pending"] }],
    opts: { metrics: ["requests"], breakdown: ["verification", "status_class"], bucket: "day" },
  },
  // the first question under other filters
  {
    filters: [{ field: "crawled", op: "eq", value: "true" }],
    opts: { metrics: ["requests", "pages", "last_crawl_at"], breakdown: ["crawler", "vendor", "category"] },
  },
];

const stepArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("ask" as const),
      q: fc.integer({ min: 0, max: QUESTIONS.length - 1 }),
      // the period: whole days ending at the day's end or at "now" (moved by `later` minutes)
      days: fc.constantFrom(2, 5, 6),
      toNow: fc.boolean(),
      limit: fc.option(fc.integer({ min: 1, max: 3 })),
      byKey: fc.boolean(),
      timezone: fc.constantFrom("UTC", "Europe/Berlin"),
    }),
  },
  fc.record({
    kind: fc.constant("outcome" as const),
    pick: fc.nat(),
    outcome: fc.constantFrom<Verification>("verified", "spoofed"),
  }),
  fc.record({ kind: fc.constant("tail" as const), h: hitArb }),
  fc.record({ kind: fc.constant("later" as const), minutes: fc.integer({ min: 1, max: 20 }) }),
);

let n = 0;
function toHit(r: H, at?: number): StoredHit {
  const t = at ?? START + r.minute * 60_000 + (n % 60) * 1_000;
  return hit({
    id: `k-${n++}`,
    timestamp: t,
    received_at: t,
    crawler: r.crawler[0],
    vendor: r.crawler[1],
    category: r.crawler[2] as StoredHit["category"],
    path: r.path,
    status: r.status,
    site_file: r.path === "/robots.txt" ? "robots.txt" : null,
    crawled: r.status === 200,
    verification: r.verification,
  });
}

Deno.test("kept hit groups property: asks between changes answer as the reference, repeats from kept groups", async () => {
  let reused = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(hitArb, { minLength: 5, maxLength: 60 }),
      fc.array(stepArb, { minLength: 3, maxLength: 16 }),
      async (first, steps) => {
        const deps = await testDeps();
        try {
          let now = NOW;
          deps.clock.set(now);
          const all = first.map((r) => toHit(r));
          await store(deps.kv, { hits: all });
          await compact(deps, "org1", "production", "hit", { graceMs: 0 });
          const outcomes = new Map<string, Verification>();
          const source = new Source(deps);
          const rollups = new HitRollups(deps.kv, 1 << 24);
          for (const step of steps) {
            if (step.kind === "later") {
              now += step.minutes * 60_000;
              deps.clock.set(now);
            } else if (step.kind === "tail") {
              const h = toHit(step.h, now - 1);
              all.push(h);
              await store(deps.kv, { hits: [h] });
            } else if (step.kind === "outcome") {
              const open = all.filter((h) => h.verification === "pending" && !outcomes.has(h.id));
              if (!open.length) continue;
              const h = open[step.pick % open.length];
              outcomes.set(h.id, step.outcome);
              await deps.kv.set(keys.verification("org1", h.id), {
                outcome: step.outcome,
                method: "ip_list",
                reason: "",
                checked_at: now,
              });
            } else {
              const q = QUESTIONS[step.q];
              const dayEnd = Math.ceil(now / DAY) * DAY;
              const scope: HitScope = {
                org: "org1",
                env: "production",
                from: dayEnd - step.days * DAY,
                to: step.toNow ? now + 1 : dayEnd,
                timezone: step.timezone,
                filters: q.filters,
              };
              const opts: HitAggregateOptions = {
                ...q.opts,
                limit: step.limit ?? undefined,
                sort: step.byKey ? { by: "key" } : undefined,
              };
              const before = rollups.kept.size;
              const path: HitPath = { rollups: 0, scannedRanges: [] };
              const got = await answerHits(source, rollups, scope, opts, path);
              assert.deepEqual(got, naiveHitsAggregate(all, outcomes, scope, opts));
              if (path.rollups && rollups.kept.size === before) reused++;
            }
          }
        } finally {
          deps.kv.close();
        }
      },
    ),
    { numRuns: 60 },
  );
  assert.ok(reused > 20, `asks answered from kept groups: ${reused}`);
});

Deno.test("hit groups: keys of four parts stay apart past 8,192 values of a part (text keys then)", () => {
  const scope: HitScope = { org: "org1", env: "production", from: 0, to: 1, timezone: "UTC" };
  const g = new HitGroups(scope, {
    metrics: ["requests"],
    breakdown: ["vendor", "category", "page", "site_file"],
  });
  const dims = g.dims;
  for (let i = 0; i < 9_000; i++) dims[2].id(`/p${i}`);
  dims[0].id("a"), dims[0].id("b"), dims[1].id("c"), dims[3].id(null);
  const keys = [[0, 0, 8_999, 0], [0, 0, 8_191, 0], [1, 0, 0, 0], [0, 0, 1, 0], [1, 0, 8_999, 0]];
  const accs = keys.map((k) => g.group(k));
  assert.equal(new Set(accs).size, keys.length, "a group per key");
  keys.forEach((k, i) => assert.equal(g.group(k), accs[i], "the same key finds its group"));
  assert.deepEqual(accs[4].key, { vendor: "b", category: "c", page: "/p8999", site_file: null });
  // a copy for another ask has its own groups with the same keys
  const copy = new HitGroups(scope, g.opts, g);
  copy.group(keys[0]).requests += 5;
  assert.equal(g.group(keys[0]).requests, 0);
  assert.deepEqual(copy.group(keys[4]).key, accs[4].key);
});
