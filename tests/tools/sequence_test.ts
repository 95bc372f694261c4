/**
 * behavior_funnel, behavior_paths and behavior_retention on a generated site against the plain computations
 * of sequence_expect.ts: random questions, asked through HTTP or MCP, from the raw records and again after
 * compaction into parts; every answer through the answer-rule checker.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { foldGroups } from "../../lib/answers/fold.ts";
import { guardSmallGroups } from "../../lib/answers/small_groups.ts";
import { toolByName } from "../../tools/registry.ts";
import { compact } from "../../lib/jobs/compact.ts";
import { DAY, LAST7 } from "./expect.ts";
import { type Harness, harness } from "./harness.ts";
import { expectFunnel, expectPaths, expectRetention, type Step } from "./sequence_expect.ts";
import { storeSite } from "./generate.ts";
import { ev } from "../lib/query/fixtures.ts";
import type { StoredEvent } from "../../lib/store/records.ts";

const PERIODS: Record<string, { from: number; to: number }> = {
  last_7_days: LAST7,
  last_28_days: { from: Date.parse("2026-10-24T00:00:00Z"), to: LAST7.to },
  "2026-11-01..2026-11-15": {
    from: Date.parse("2026-11-01T00:00:00Z"),
    to: Date.parse("2026-11-16T00:00:00Z"),
  },
};
const STEPS: Step[] = [
  { page: "/" },
  { page: "/pricing" },
  { page: "/blog/*" },
  { page: "/docs*" },
  { page: "/contact" },
  { event: "sign_up" },
  { event: "sign_up", property: "plan", value: "pro" },
  { event: "sign_up", property: "plan", value: "team" },
  { event: "$autocapture" },
];
const WINDOWS: Record<string, number> = { "30m": 1_800_000, "2h": 7_200_000, "1d": DAY, "7d": 7 * DAY };

type Ask = (tool: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>;

async function mcpAsk(h: Harness): Promise<{ ask: Ask; close: () => Promise<void> }> {
  const client = new Client({ name: "sequence", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  return {
    ask: async (tool, input) => {
      const res = await client.callTool({ name: tool, arguments: input });
      assert.ok(!res.isError, `${tool}: ${JSON.stringify(res.content)}`);
      return res.structuredContent as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}

const questions = {
  funnel: fc.record({
    period: fc.constantFrom(...Object.keys(PERIODS)),
    steps: fc.array(fc.constantFrom(...STEPS), { minLength: 2, maxLength: 4 }),
    window: fc.constantFrom(undefined, ...Object.keys(WINDOWS)),
    split: fc.constantFrom(undefined, "channel", "source", "country", "device", "browser"),
    mcp: fc.boolean(),
  }),
  paths: fc.record({
    period: fc.constantFrom(...Object.keys(PERIODS)),
    anchor: fc.constantFrom(...STEPS.filter((s) => s.property === undefined)),
    direction: fc.constantFrom(undefined, "after", "before"),
    depth: fc.constantFrom(undefined, 1, 2, 3, 5),
    events: fc.boolean(),
    mcp: fc.boolean(),
  }),
  retention: fc.record({
    period: fc.constantFrom(...Object.keys(PERIODS)),
    interval: fc.constantFrom(undefined, "day", "week", "month"),
    cohort: fc.constantFrom(undefined, "sign_up", "$autocapture"),
    returning: fc.constantFrom(undefined, "sign_up", "$pageview"),
    mcp: fc.boolean(),
  }),
};

async function askAll(h: Harness, viaMcp: Ask, runs: number) {
  const ask = (mcp: boolean, tool: string, input: Record<string, unknown>) =>
    (mcp ? viaMcp : h.ask)(tool, input).then((a) => {
      assert.deepEqual(
        checkAnswer(a, { identifiers: h.site.identifiers }),
        [],
        `${tool} ${JSON.stringify(input)}`,
      );
      return a;
    });
  await fc.assert(
    fc.asyncProperty(questions.funnel, async (q) => {
      const input = {
        period: q.period,
        steps: q.steps,
        ...(q.window ? { conversion_window: q.window } : {}),
        ...(q.split ? { split_by: q.split } : {}),
      };
      // deno-lint-ignore no-explicit-any
      const a: any = await ask(q.mcp, "behavior_funnel", input);
      const want = expectFunnel(
        h.site.events,
        PERIODS[q.period],
        q.steps,
        WINDOWS[q.window ?? "1d"],
        q.split,
      );
      const strip = (steps: { step: number; name: string }[]) =>
        steps.map(({ step: _s, name: _n, ...x }) => x);
      if (q.steps.some((s) => s.property !== undefined)) {
        // under a property condition the pipeline folds the splits and guards every declared count (rule 5,
        // lib/answers/fold.ts, tested on its own in group_fold_test.ts): the plain computation takes the same
        // step
        const named = (steps: unknown[]) =>
          steps.map((x, i) => ({ step: i + 1, name: a.steps[i].name, ...(x as object) }));
        const shaped: Record<string, unknown> = {
          scope: { filter: "property" },
          notices: [],
          steps: named(want.steps),
          overall_conversion: want.overall,
          splits: want.splits.map((x) => ({
            name: x.name,
            visitors: x.visitors,
            overall_conversion: x.overall,
            steps: named(x.steps),
          })),
        };
        const output = toolByName("behavior_funnel")!.output;
        foldGroups(shaped, output);
        guardSmallGroups(shaped, output);
        want.steps = strip(shaped.steps as never) as never;
        want.overall = shaped.overall_conversion as never;
        want.splits = (shaped.splits as Record<string, never>[]).map((x) => ({
          name: x.name,
          visitors: x.visitors,
          overall: x.overall_conversion,
          steps: strip(x.steps),
        }));
      }
      assert.deepEqual(strip(a.steps), want.steps, JSON.stringify(input));
      assert.equal(a.overall_conversion, want.overall);
      assert.equal(a.conversion_window, q.window ?? "1d");
      assert.equal(a.scope.filter !== null, q.steps.some((s) => s.property !== undefined));
      assert.equal(a.splits_total, want.splitsTotal);
      assert.deepEqual(
        a.splits.map((s: { name: string; visitors: unknown; overall_conversion: unknown; steps: [] }) => ({
          name: s.name,
          visitors: s.visitors,
          overall: s.overall_conversion,
          steps: strip(s.steps),
        })),
        want.splits,
        JSON.stringify(input),
      );
    }),
    { numRuns: runs },
  );
  await fc.assert(
    fc.asyncProperty(questions.paths, async (q) => {
      const input = {
        period: q.period,
        ...q.anchor,
        ...(q.direction ? { direction: q.direction } : {}),
        ...(q.depth ? { depth: q.depth } : {}),
        ...(q.events ? { include_events: true } : {}),
      };
      // deno-lint-ignore no-explicit-any
      const a: any = await ask(q.mcp, "behavior_paths", input);
      const want = expectPaths(
        h.site.events,
        PERIODS[q.period],
        q.anchor,
        q.direction ?? "after",
        q.depth ?? 3,
        q.events,
      );
      assert.equal(a.anchor_visitors, want.anchorVisitors);
      assert.equal(a.anchor_visits, want.anchorVisits);
      assert.deepEqual(a.paths, want.paths.slice(0, 25), JSON.stringify(input));
      assert.equal(a.paths_total, want.paths.length);
      assert.deepEqual(a.nearest_steps, want.nearest.slice(0, 10));
      assert.equal(a.nearest_steps_total, want.nearest.length);
    }),
    { numRuns: runs },
  );
  await fc.assert(
    fc.asyncProperty(questions.retention, async (q) => {
      const w = PERIODS[q.period];
      const days = Math.ceil((w.to - w.from) / DAY);
      const interval = q.interval ?? (days <= 14 ? "day" : "week");
      if (interval === "day" && days > 25) return; // a 422 (tested below)
      const input = {
        period: q.period,
        ...(q.interval ? { interval: q.interval } : {}),
        ...(q.cohort ? { cohort_event: q.cohort } : {}),
        ...(q.returning ? { return_event: q.returning } : {}),
      };
      // deno-lint-ignore no-explicit-any
      const a: any = await ask(q.mcp, "behavior_retention", input);
      const want = expectRetention(h.site.events, w, interval, q.cohort, q.returning);
      assert.equal(a.interval, interval);
      assert.deepEqual(a.cohorts, want.cohorts, JSON.stringify(input));
      assert.equal(a.cohorts_total, want.cohorts.length);
      assert.deepEqual(a.average_curve, want.curve);
    }),
    { numRuns: runs },
  );
}

Deno.test("sequence tools: funnel, paths and retention equal a plain computation, raw and compacted, HTTP and MCP", async () => {
  const h = await harness({ visitors: 80 });
  const mcp = await mcpAsk(h);
  await askAll(h, mcp.ask, 20);
  await compact(h.deps, h.t.org, "production", "ev", { graceMs: 0 });
  await askAll(h, mcp.ask, 20);
  await mcp.close();
  h.close();
});

Deno.test("behavior_funnel: a small group under a property condition reads 'fewer than 5', with nothing it could be told from", async () => {
  const h = await harness();
  const a = await h.ask("behavior_funnel", {
    period: "last_7_days",
    steps: [{ event: "sign_up", property: "plan", value: "team" }, { page: "/" }],
    conversion_window: "7d",
    split_by: "device",
  });
  assert.match(a.scope.filter, /sign_up where plan = team/);
  const team = new Set(
    h.site.events.filter((e) => e.properties.plan === "team" && e.received_at >= LAST7.from).map((e) =>
      e.anonymous_id
    ),
  );
  assert.equal(team.size, 3, "the data has a small group");
  assert.equal(a.steps[0].visitors, "fewer than 5");
  assert.equal(a.steps[0].conversion_from_first, null);
  assert.ok(a.steps[1].visitors === 0 || a.steps[1].visitors === "fewer than 5");
  assert.equal(a.steps[1].dropped_off, null, "step 1's count minus step 2's would tell step 1's");
  assert.equal(a.steps[1].conversion_from_previous, null);
  assert.equal(a.overall_conversion, null);
  for (const s of a.splits) assert.equal(s.visitors, "fewer than 5");
  assert.ok(a.notices.some((n: string) => /property condition/.test(n)));
  h.close();
});

Deno.test("sequence tools: 422 names what to change for each question they cannot answer as asked", async () => {
  const h = await harness({ visitors: 10 });
  const refused = async (tool: string, input: Record<string, unknown>, says: RegExp) => {
    const res = await h.askRaw(tool, input);
    const body = await res.json();
    assert.equal(res.status, 422, `${tool} ${JSON.stringify(input)}: ${JSON.stringify(body)}`);
    assert.match(body.error, says, JSON.stringify(input));
  };
  const two = [{ page: "/" }, { page: "/pricing" }];
  await refused("behavior_funnel", { steps: [{ page: "/" }] }, /2 to 8 steps, not 1/);
  await refused("behavior_funnel", { steps: Array(9).fill({ page: "/" }) }, /2 to 8 steps, not 9/);
  await refused("behavior_funnel", {}, /steps/);
  await refused(
    "behavior_funnel",
    { steps: [{ page: "/", event: "x" }, { page: "/a" }] },
    /steps\[0\]: .*either a page or an event/,
  );
  await refused(
    "behavior_funnel",
    { steps: [{}, { page: "/a" }] },
    /steps\[0\]: .*either a page or an event/,
  );
  await refused(
    "behavior_funnel",
    { steps: [{ event: "x", property: "plan" }, { page: "/a" }] },
    /needs both `property` and `value`/,
  );
  await refused(
    "behavior_funnel",
    { steps: [{ page: "pricing" }, { page: "/a" }] },
    /steps\[0\]\.page: a page is a path/,
  );
  await refused("behavior_funnel", { steps: [{ page: "/a*b" }, { page: "/a" }] }, /trailing \*/);
  await refused("behavior_funnel", { steps: two, conversion_window: "1 week" }, /30m, 2h, 1d, 7d/);
  await refused("behavior_funnel", { steps: two, conversion_window: "0h" }, /longer than 0/);
  await refused(
    "behavior_funnel",
    { steps: two, period: "last_7_days", conversion_window: "8d" },
    /longer than the period \(7 days\): use at most 7d/,
  );
  await refused("behavior_funnel", { steps: two, split_by: "city" }, /split_by/);
  await refused("behavior_paths", {}, /either `page` .* or `event`/);
  await refused("behavior_paths", { page: "/", event: "sign_up" }, /either `page` .* or `event`/);
  await refused("behavior_paths", { page: "/", depth: 6 }, /depth/);
  await refused("behavior_paths", { page: "/", direction: "sideways" }, /direction/);
  await refused(
    "behavior_retention",
    { period: "last_90_days", interval: "day" },
    /at most 25 cohorts: use a longer interval \(week\)/,
  );
  await refused("behavior_retention", { interval: "year" }, /interval/);
  await refused("behavior_retention", { cohort_event: "" }, /cohort_event/);
  h.close();
});

/** One visit: a pageview (and page leave) per page, 30 s apart, then the given custom events at the end. */
function visit(
  h: Harness,
  who: { visitor: string; session: string; at: number; source?: string },
  pages: string[],
  events: string[] = [],
): StoredEvent[] {
  let t = who.at, seq = 0;
  const common = {
    org: h.t.org,
    touchpoint: h.t.touchpoint,
    anonymous_id: who.visitor,
    session_id: who.session,
    source: who.source ?? "(direct)",
  };
  const out: StoredEvent[] = [];
  for (const page of pages) {
    out.push(ev({ ...common, received_at: t, sequence_no: seq++, path: page, screen: page }));
    out.push(
      ev({ ...common, received_at: t + 1000, sequence_no: seq++, path: page, event_type: "$pageleave" }),
    );
    t += 30_000;
  }
  for (const name of events) {
    out.push(ev({ ...common, received_at: t += 1000, sequence_no: seq++, event_type: name }));
  }
  return out;
}

Deno.test("behavior_paths: paths rank by visitors; one visitor taking a path in several visits counts once", async () => {
  const h = await harness({ visitors: 0 });
  const day = Date.parse("2026-11-18T10:00:00Z");
  const events: StoredEvent[] = [];
  // one visitor goes /pricing → /contact in 4 visits; three visitors go /pricing → /docs once each
  for (let s = 0; s < 4; s++) {
    events.push(
      ...visit(h, { visitor: "loyal", session: `loyal-${s}`, at: day + s * 3_600_000 }, [
        "/pricing",
        "/contact",
      ]),
    );
  }
  for (let v = 0; v < 3; v++) {
    events.push(
      ...visit(h, { visitor: `new-${v}`, session: `new-${v}`, at: day + v * 60_000 }, [
        "/pricing",
        "/pricing",
        "/docs",
      ], ["subscribe"]),
    );
  }
  await storeSite(h.deps.kv, { events, hits: [], identifiers: [] });
  const a = await h.ask("behavior_paths", {
    period: "last_7_days",
    page: "/pricing",
    depth: 2,
    include_events: true,
  });
  assert.equal(a.anchor_visitors, 4);
  assert.equal(a.anchor_visits, 7);
  assert.deepEqual(a.paths, [
    { steps: ["/docs", "subscribe"], visitors: 3, visits: 3, share: 0.75 },
    { steps: ["/contact", "(exit)"], visitors: 1, visits: 4, share: 0.25 },
  ]);
  const before = await h.ask("behavior_paths", {
    period: "last_7_days",
    event: "subscribe",
    direction: "before",
    depth: 3,
  });
  // reloads of /pricing are one step; the visit began there
  assert.deepEqual(before.paths, [{
    steps: ["/docs", "/pricing", "(entry)"],
    visitors: 3,
    visits: 3,
    share: 1,
  }]);
  h.close();
});

Deno.test("behavior_funnel: a split shows the top 10 values, then the rest together as (other)", async () => {
  const h = await harness({ visitors: 0 });
  const day = Date.parse("2026-11-18T10:00:00Z");
  const events: StoredEvent[] = [];
  // source k has k + 1 visitors; every second visitor signs up
  for (let k = 0; k < 13; k++) {
    for (let v = 0; v <= k; v++) {
      const id = `s${k}-v${v}`;
      events.push(
        ...visit(h, { visitor: id, session: id, at: day + v * 60_000, source: `site${k}.example` }, [
          "/",
          "/pricing",
        ], v % 2 ? [] : ["subscribe"]),
      );
    }
  }
  await storeSite(h.deps.kv, { events, hits: [], identifiers: [] });
  const a = await h.ask("behavior_funnel", {
    period: "last_7_days",
    steps: [{ page: "/" }, { page: "/pricing" }, { event: "subscribe" }],
    split_by: "source",
  });
  assert.equal(a.splits_total, 13);
  assert.deepEqual(a.splits.map((s: { name: string }) => s.name), [
    ...Array.from({ length: 10 }, (_, i) => `site${12 - i}.example`),
    "(other)",
  ]);
  const other = a.splits[10];
  assert.equal(other.visitors, 1 + 2 + 3);
  assert.deepEqual(other.steps.map((s: { visitors: number }) => s.visitors), [6, 6, 1 + 1 + 2]);
  // each visitor took 30 s from / to /pricing: the median says so once 5 visitors stand behind it
  assert.equal(other.steps[1].time_from_previous_median_s, 30);
  assert.equal(a.splits[8].steps[1].time_from_previous_median_s, 30); // site4: 5 visitors
  assert.equal(a.splits[9].steps[1].time_from_previous_median_s, null); // site3: 4 visitors
  h.close();
});
