/**
 * Every behavior tool that counts visitors, asked under a saved cohort: exact counts of the cohort's visitors,
 * the scope says so, rule 5 over the whole answer (groups of 1, 4, 5 and 6 visitors; behavior_explain_change
 * refuses a cohort of 1 to 4, see explain_change_cohort_test.ts), the same JSON through MCP (whose client checks
 * it against the published output schema), and clear 422s.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { TOOLS } from "../../tools/registry.ts";
import { listing } from "../../pipeline/listing.ts";
import { harness } from "./harness.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { NOW } from "./generate.ts";

const QUESTIONS: Record<string, Record<string, unknown>> = {
  behavior_overview: {},
  behavior_trends: { period: "last_7_days", split_by: "country" },
  behavior_funnel: {
    steps: [{ page: "/" }, { page: "/pricing" }, { event: "sign_up" }],
    split_by: "channel",
  },
  behavior_pages: {},
  behavior_events: {},
  behavior_event_properties: { event: "sign_up" },
  behavior_paths: { page: "/pricing" },
  behavior_sources: { conversion_event: "sign_up" },
  behavior_retention: { period: "last_28_days", interval: "week" },
  behavior_sessions: { limit: 5 },
  behavior_features: {},
  behavior_performance: {},
  // 18 days and the 18 before: both cohorts have 5+ visitors in each (a smaller one is refused, below)
  behavior_explain_change: { period: "2026-11-03..2026-11-20", metric: "sessions" },
};

function mcpClient(h: Awaited<ReturnType<typeof harness>>) {
  const client = new Client({ name: "cohorts", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  return client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  ).then(() => client);
}

Deno.test("cohort input: every behavior tool that counts visitors takes one; answers keep rule 5 and match MCP", async () => {
  const h = await harness({ visitors: 90 });
  try {
    const takers = TOOLS.filter((t) => (listing(t).input_schema.properties as Record<string, unknown>).cohort)
      .map((t) => t.name).sort();
    assert.deepEqual(
      takers,
      Object.keys(QUESTIONS).sort(),
      "all behavior tools but the crawler ones and behavior_saved",
    );
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Signed up", { kind: "event", event: "sign_up" });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Mobile pricing", {
      all: [{ kind: "page", path: "/pricing" }, { kind: "device", values: ["mobile"] }],
    });
    const client = await mcpClient(h);
    for (const [tool, input] of Object.entries(QUESTIONS)) {
      for (const cohort of ["Signed up", "mobile PRICING"]) {
        const answer = await h.ask(tool, { ...input, cohort });
        assert.match(answer.scope.filter, /^saved cohort "/, tool);
        const output = TOOLS.find((t) => t.name === tool)!.output;
        assert.deepEqual(
          checkAnswer(answer, { identifiers: h.site.identifiers, output }),
          [],
          `${tool} ${cohort}`,
        );
        const viaMcp = await client.callTool({ name: tool, arguments: { ...input, cohort } });
        assert.ok(!viaMcp.isError, `${tool}: ${JSON.stringify(viaMcp.content)}`);
        assert.deepEqual(viaMcp.structuredContent, answer, tool);
      }
    }
    await client.close();
  } finally {
    h.close();
  }
});

Deno.test("cohort input: counts are exactly the cohort's visitors and their events", async () => {
  const h = await harness({ visitors: 90 });
  try {
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Signed up", { kind: "event", event: "sign_up" });
    const a = await h.ask("behavior_overview", { cohort: "Signed up", period: "last_28_days" });
    const from = Date.parse(a.scope.period.from), to = Date.parse(a.scope.period.to);
    const inPeriod = h.site.events.filter((e) =>
      e.traffic === "human" && e.received_at >= from && e.received_at < to
    );
    const members = new Set(inPeriod.filter((e) => e.event_type === "sign_up").map((e) => e.anonymous_id));
    assert.ok(members.size >= 5 && members.size < new Set(inPeriod.map((e) => e.anonymous_id)).size);
    assert.equal(a.visitors.value, members.size);
    const mine = inPeriod.filter((e) => members.has(e.anonymous_id));
    assert.equal(a.pageviews.value, mine.filter((e) => e.event_type === "$pageview").length);
    const pages = await h.ask("behavior_pages", { cohort: "Signed up", period: "last_28_days" });
    for (const p of pages.pages) {
      const views = mine.filter((e) => e.event_type === "$pageview" && e.path === p.page);
      const viewers = new Set(views.map((e) => e.anonymous_id)).size;
      assert.equal(p.visitors, viewers < 5 ? "fewer than 5" : viewers, p.page);
      assert.equal(p.pageviews, viewers < 5 ? "fewer than 5" : views.length, p.page);
    }
    // the cohort's size through behavior_saved is the same figure
    const size = await h.ask("behavior_saved", {
      action: "cohort",
      name: "signed up",
      period: "last_28_days",
    });
    assert.equal(size.cohort.visitors, members.size);
    assert.equal(size.cohort.defines, "did sign_up");
  } finally {
    h.close();
  }
});

Deno.test("cohort input: rule 5 with cohorts of 1, 4, 5 and 6 visitors", async () => {
  const h = await harness({ visitors: 40 });
  try {
    for (const n of [1, 4, 5, 6]) {
      const events = Array.from({ length: n }, (_, v) =>
        ev({
          org: h.t.org,
          touchpoint: h.t.touchpoint,
          received_at: NOW - 3_600_000 + v,
          anonymous_id: `anon-7-${v}`,
          session_id: `vip-${n}-${v}`,
          event_type: `vip_${n}`,
          path: "/pricing",
        }));
      await store(h.deps.kv, { events });
      await saveCohort(h.deps, h.t.org, h.t.touchpoint, `vip ${n}`, { kind: "event", event: `vip_${n}` });
      const small = n < 5;
      const o = await h.ask("behavior_overview", { cohort: `vip ${n}`, period: "last_7_days" });
      assert.equal(o.visitors.value, small ? "fewer than 5" : n, `overview ${n}`);
      assert.equal(o.session_duration_s.value === null, small || o.session_duration_s.value === null);
      if (small) {
        assert.equal(o.session_duration_s.value, null);
        assert.equal(o.visitors.change, null);
        assert.ok(o.notices.some((x: string) => x.includes("fewer than 5")));
      }
      const t = await h.ask("behavior_trends", {
        cohort: `vip ${n}`,
        period: "last_7_days",
        event: `vip_${n}`,
      });
      assert.equal(t.total.value, small ? "fewer than 5" : n, `trends ${n}`);
      const s = await h.ask("behavior_saved", { action: "cohort", name: `vip ${n}`, period: "last_7_days" });
      assert.equal(s.cohort.visitors, small ? "fewer than 5" : n);
      for (const [tool, input] of Object.entries(QUESTIONS)) {
        if (tool === "behavior_explain_change" && small) {
          // a change among 1 to 4 visitors is not explained at all
          const res = await h.askRaw(tool, { ...input, cohort: `vip ${n}` });
          assert.equal(res.status, 422, `${tool} vip ${n}`);
          assert.match((await res.json()).error, /fewer than 5 visitors in this period/);
          continue;
        }
        const answer = await h.ask(tool, { ...input, cohort: `vip ${n}` });
        assert.deepEqual(checkAnswer(answer, { identifiers: h.site.identifiers }), [], `${tool} vip ${n}`);
        const text = JSON.stringify(answer);
        if (small) {
          for (const k of [1, 2, 3, 4]) assert.ok(!text.includes(`"visitors":${k},`), `${tool} ${k}`);
        }
      }
    }
  } finally {
    h.close();
  }
});

Deno.test("cohort input: an unknown cohort, or one of another website, is a 422 saying what to ask", async () => {
  const h = await harness({ visitors: 10 });
  try {
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Signed up", { kind: "event", event: "sign_up" });
    const res = await h.askRaw("behavior_pages", { cohort: "Buyers" });
    assert.equal(res.status, 422);
    const body = await res.json();
    assert.match(body.error, /no saved cohort "Buyers"; saved cohorts: "Signed up"/);
    const other = await h.askRaw("behavior_pages", { cohort: "Signed up", touchpoint: "nowhere.example" });
    assert.equal(other.status, 422);
  } finally {
    h.close();
  }
});
