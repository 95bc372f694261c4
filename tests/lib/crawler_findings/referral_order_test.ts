/**
 * Crawl-to-referral asks its two web-event questions in turn, the entry pages first: on a site answered from
 * the session facts' attributions the engine keeps the period's joined rows, so the second question counts
 * from the first one's join instead of joining every part's facts again beside it (two joins at once cost
 * twice the time and memory at 10M events). Answers stay those of the engine.
 */
import assert from "node:assert/strict";
import { createEngine, type Engine } from "../../../lib/query/api.ts";
import type { AggregateOptions, Scope } from "../../../lib/query/api.ts";
import { crawlToReferral } from "../../../lib/crawler_findings/referral.ts";
import { ev, store } from "../query/fixtures.ts";
import { testDeps } from "../../helpers/deps.ts";

const T0 = Date.parse("2026-11-02T10:00:00Z");

Deno.test("crawl-to-referral: the entry pages' question is answered before the sources' is asked", async () => {
  const deps = await testDeps();
  try {
    await store(deps.kv, {
      events: [
        ev({
          received_at: T0,
          anonymous_id: "a",
          session_id: "s1",
          source: "ChatGPT",
          channel: "AI Assistant",
        }),
        ev({ received_at: T0 + 1_000, anonymous_id: "a", session_id: "s1", path: "/pricing" }),
        ev({
          received_at: T0 + 2_000,
          anonymous_id: "b",
          session_id: "s2",
          source: "Perplexity",
          channel: "AI Assistant",
          path: "/docs",
        }),
      ],
    });
    const real = createEngine(deps);
    const log: string[] = [];
    let open = 0;
    const engine: Engine = {
      ...real,
      aggregate: async (s: Scope, o: AggregateOptions) => {
        const name = o.breakdown?.includes("entry_page") ? "entries" : "sources";
        log.push(`${name} asked${open ? " while another is open" : ""}`);
        open++;
        try {
          return await real.aggregate(s, o);
        } finally {
          open--;
          log.push(`${name} answered`);
        }
      },
    };
    const scope: Scope = {
      org: "org1",
      env: "production",
      from: T0 - 3_600_000,
      to: T0 + 3_600_000,
      timezone: "UTC",
      traffic: ["human"],
    };
    const got = await crawlToReferral({
      engine,
      hits: { org: "org1", env: "production", from: scope.from, to: scope.to, timezone: "UTC" },
      events: scope,
    });
    assert.deepEqual(log, ["entries asked", "entries answered", "sources asked", "sources answered"]);
    // the answers are the engine's: ChatGPT sent a to /, Perplexity sent b to /docs
    const byVendor = Object.fromEntries(got.vendors.map((v) => [v.vendor, v.referred_visitors]));
    assert.deepEqual(byVendor, { OpenAI: 1, Perplexity: 1 });
    assert.deepEqual(
      got.pages.map((p) => [p.vendor, p.page, p.referred_visitors]),
      [["OpenAI", "/", 1], ["Perplexity", "/docs", 1]],
    );
  } finally {
    deps.kv.close();
  }
});
