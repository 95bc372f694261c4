import assert from "node:assert/strict";
import { createEngine } from "../../../lib/query/api.ts";
import type { Scope } from "../../../lib/query/api.ts";
import { testDeps } from "../../helpers/deps.ts";
import { ev, hit, store } from "./fixtures.ts";

const T0 = Date.parse("2026-11-20T10:00:00Z");
const scope: Scope = {
  org: "org1",
  env: "production",
  from: T0 - 86_400_000,
  to: T0 + 86_400_000,
  timezone: "UTC",
};

Deno.test("query: visitors, sessions, pageviews and bounce rate of a small site", async () => {
  const deps = await testDeps();
  await store(deps.kv, {
    events: [
      ev({ received_at: T0, anonymous_id: "a", session_id: "s1", path: "/" }),
      ev({ received_at: T0 + 1000, anonymous_id: "a", session_id: "s1", path: "/pricing" }),
      ev({ received_at: T0 + 2000, anonymous_id: "b", session_id: "s2", path: "/" }),
      ev({
        received_at: T0 + 3000,
        anonymous_id: "bot",
        session_id: "s3",
        path: "/",
        traffic: "bot",
        crawler: "curl",
      }),
    ],
  });
  const r = await createEngine(deps).aggregate(scope, {
    metrics: ["visitors", "sessions", "pageviews", "bounce_rate", "exit_rate"],
    breakdown: ["page"],
  });
  assert.deepEqual(r.totals, { visitors: 2, sessions: 2, pageviews: 3, bounce_rate: 0.5, exit_rate: 2 / 3 });
  assert.deepEqual(r.rows.map((x) => [x.key.page, x.metrics.visitors, x.metrics.exit_rate]), [
    ["/", 2, 0.5],
    ["/pricing", 1, 1],
  ]);
  const bots = await createEngine(deps).aggregate({ ...scope, traffic: ["bot"] }, {
    metrics: ["visitors", "pageviews"],
  });
  assert.deepEqual(bots.totals, { visitors: 0, pageviews: 1 });
  deps.kv.close();
});

Deno.test("query: a later verification outcome wins over the one stored at arrival", async () => {
  const deps = await testDeps();
  const h = hit({ timestamp: T0, verification: "pending" });
  await store(deps.kv, { hits: [h, hit({ timestamp: T0 + 1, path: "/a" })] });
  await deps.kv.set(["verification", "org1", h.id], {
    outcome: "spoofed",
    method: "reverse_dns",
    reason: "x",
    checked_at: T0,
  });
  const r = await createEngine(deps).hitsAggregate({ ...scope, filters: [] }, {
    metrics: ["requests", "pages"],
    breakdown: ["verification"],
  });
  assert.deepEqual(r.rows.map((x) => [x.key.verification, x.metrics.requests]), [["spoofed", 1], [
    "verified",
    1,
  ]]);
  deps.kv.close();
});

Deno.test("query: bot and AI-agent events break down and filter by their crawler's catalog category", async () => {
  const deps = await testDeps();
  const agent = (i: number, crawler: string, traffic: "bot" | "ai_agent") =>
    ev({ received_at: T0 + i * 1000, anonymous_id: `x${i}`, session_id: `x${i}`, traffic, crawler });
  await store(deps.kv, {
    events: [
      agent(1, "GPTBot", "ai_agent"),
      agent(2, "ClaudeBot", "ai_agent"),
      agent(3, "Googlebot", "bot"),
      agent(4, "unknown", "bot"),
      ev({ received_at: T0 + 5000, anonymous_id: "h", session_id: "h" }),
    ],
  });
  const all: Scope = { ...scope, traffic: ["human", "bot", "ai_agent"] };
  const engine = createEngine(deps);
  const rows = (await engine.aggregate(all, { metrics: ["events"], breakdown: ["crawler_category"] })).rows
    .map((r) => [r.key.crawler_category, r.metrics.events]);
  assert.deepEqual(
    new Map(rows as [string | null, number][]),
    new Map([["ai_training", 2], ["search_engine", 1], [null, 2]]), // "unknown" automation and the human
  );
  const filtered = await engine.aggregate({
    ...all,
    filters: [{ field: "crawler_category", op: "eq", value: "ai_training" }],
  }, { metrics: ["events"] });
  assert.equal(filtered.totals.events, 2);
  deps.kv.close();
});
