/**
 * Rule 5 under a saved cohort, driven by the fields each tool's output schema declares as counts of a group
 * (lib/answers/group_counts.ts): every behavior tool that takes a cohort, asked under one with 1 to 4
 * visitors in the period, and one with 9 in the period and 3 in the period before. No field that counts
 * people, visits, sessions or events of a group reads 1 to 4 (this test finds them by name, apart from the
 * declarations, so a field left undeclared fails here), visits are listed only at 5 or more, and the published
 * output schema accepts what is given (the MCP client checks it).
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { declarationOf } from "../../lib/answers/group_counts.ts";
import { TOOLS } from "../../tools/registry.ts";
import { listing } from "../../pipeline/listing.ts";
import { harness } from "./harness.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { NOW } from "./generate.ts";
import { z } from "zod";

const DAY = 86_400_000;

const QUESTIONS: Record<string, Record<string, unknown>> = {
  behavior_overview: { period: "last_7_days" },
  behavior_trends: { period: "last_7_days", split_by: "country" },
  behavior_funnel: {
    period: "last_7_days",
    steps: [{ page: "/" }, { page: "/pricing" }],
    split_by: "channel",
  },
  behavior_pages: { period: "last_7_days" },
  behavior_events: { period: "last_7_days" },
  behavior_event_properties: { period: "last_7_days", event: "sign_up" },
  behavior_paths: { period: "last_7_days", page: "/pricing" },
  behavior_sources: { period: "last_7_days", conversion_event: "sign_up" },
  behavior_retention: { period: "last_28_days", interval: "week" },
  behavior_sessions: { period: "last_7_days", limit: 5 },
  behavior_features: { period: "last_7_days" },
  behavior_performance: { period: "last_7_days" },
  behavior_explain_change: { period: "last_7_days", metric: "visitors" },
};

/** Fields that count people, visits, sessions or events, found by name (not by the declarations). */
const COUNT_NAME =
  /(^|_)(visitors|visits|sessions|events|pageviews|entries|exits|conversions|returned|page_loads|clicks|starts|submits|dropped_off|measured)$/;
/** Fields that are rates, shares or averages of a group, found by name (not by the declarations). */
const RATE_NAME =
  /(^|_)(rates?|share|conversion|conversion_from_(first|previous)|views_per_session|scroll_depth_percent)$/;
/** Each rate beside the count it is worked out from: when the count reads "fewer than 5", the rate is null. */
const RATE_OF: Record<string, string> = {
  conversion_rate: "conversions",
  drop_off_rate: "dropped_off",
  exit_rate: "exits",
  rates: "returned",
  rage_click_visitors_share: "rage_clicks",
};

/** Rates given (not null) where the group or the count they come from reads "fewer than 5", by path. */
function ratesOfSmallGroups(v: unknown, path = "", out: string[] = []): string[] {
  if (Array.isArray(v)) {
    v.forEach((x, i) => ratesOfSmallGroups(x, `${path}[${i}]`, out));
    return out;
  }
  if (!v || typeof v !== "object") return out;
  const o = v as Record<string, unknown>;
  const few = (x: unknown) => x === "fewer than 5";
  const isCompared = (x: unknown): x is Record<string, unknown> =>
    !!x && typeof x === "object" && !Array.isArray(x) && "previous" in x;
  for (const [k, x] of Object.entries(o)) {
    const p = path ? `${path}.${k}` : k;
    if (k === "scope" || k === "notices") continue;
    ratesOfSmallGroups(x, p, out);
    if (!RATE_NAME.test(k) || x === null) continue;
    const source = RATE_OF[k] === undefined ? undefined : o[RATE_OF[k]];
    if (isCompared(x)) {
      for (const side of ["value", "previous"]) {
        const groupFew = few(isCompared(o.visitors) ? o.visitors[side] : o.visitors);
        const sourceFew = few(isCompared(source) ? source[side] : source);
        if (x[side] !== null && (groupFew || sourceFew)) out.push(`${p}.${side}`);
      }
    } else if (Array.isArray(x)) {
      x.forEach((r, i) => {
        if (r !== null && (few(o.visitors) || (Array.isArray(source) && few(source[i])))) {
          out.push(`${p}[${i}]`);
        }
      });
    } else if (few(o.visitors) || few(source)) out.push(p);
  }
  return out;
}

/** Named like counts, but of something else: event names, property values, one shown visit's own figures. */
const NOT_OF_A_GROUP = /^(events_total|values_total|values_withheld|sessions\[\d+\]\.(events|pages_seen))$/;

function* numbers(v: unknown, path = "", key = ""): Generator<[string, string, number]> {
  if (typeof v === "number") yield [path, key, v];
  else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      yield* numbers(v[i], `${path}[${i}]`, key);
    }
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "scope" || k === "by") continue;
      // a compared figure's sides count what the figure counts
      const named = ["value", "previous"].includes(k) ? key : k;
      yield* numbers(x, path ? `${path}.${k}` : k, named);
    }
  }
}

/** Members of a cohort: visitors who sent `event`, each with a visit of two pages, a sign-up and a click. */
function members(t: { org: string; touchpoint: string }, event: string, n: number, at: number) {
  return Array.from({ length: n }, (_, v) => {
    const base = {
      org: t.org,
      touchpoint: t.touchpoint,
      anonymous_id: `anon-${event}-${v}`,
      session_id: `${event}-${v}`,
      geo: { country: "FR", city: "Paris", asn: null, as_org: null },
      device_type: "mobile" as const,
      referrer_host: "news.example",
      source: "news.example",
      channel: "Referral" as const,
    };
    return [
      ev({ ...base, received_at: at + v, sequence_no: 0, event_type: "$pageview", path: "/" }),
      ev({
        ...base,
        received_at: at + v + 20_000,
        sequence_no: 1,
        event_type: "$pageview",
        path: "/pricing",
      }),
      ev({
        ...base,
        received_at: at + v + 30_000,
        sequence_no: 2,
        event_type: "sign_up",
        path: "/pricing",
        properties: { plan: "pro" },
      }),
      ev({
        ...base,
        received_at: at + v + 40_000,
        sequence_no: 3,
        event_type: "$autocapture",
        path: "/pricing",
        element: 'button "Buy"',
      }),
      ev({ ...base, received_at: at + v + 50_000, sequence_no: 4, event_type: event, path: "/pricing" }),
    ];
  }).flat();
}

const outputOf = (tool: string) => TOOLS.find((t) => t.name === tool)!.output as z.ZodType;

Deno.test("small groups: every cohort tool, a cohort of 1-4 visitors now or in the period before, no count under 5", async () => {
  const h = await harness({ visitors: 40 });
  try {
    // "few": 3 visitors this week; "was few": 9 this week and 3 others the week before
    await store(h.deps.kv, {
      events: [
        ...members(h.t, "few", 3, NOW - 2 * DAY),
        ...members(h.t, "was_few", 9, NOW - 2 * DAY),
        ...members(h.t, "was_few", 3, NOW - 9 * DAY).map((e) => ({
          ...e,
          anonymous_id: `${e.anonymous_id}-b`,
        })),
      ],
    });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "few", { kind: "event", event: "few" });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "was few", { kind: "event", event: "was_few" });
    const client = new Client({ name: "small-groups", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
        fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
        requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
      }),
    );
    const takers = TOOLS.filter((t) =>
      (listing(t).input_schema.properties as Record<string, unknown>).cohort
    );
    assert.deepEqual(takers.map((t) => t.name).sort(), Object.keys(QUESTIONS).sort());
    for (const cohort of ["few", "was few"]) {
      for (const [tool, input] of Object.entries(QUESTIONS)) {
        const res = await h.askRaw(tool, { ...input, cohort });
        const answer = await res.json();
        if (tool === "behavior_explain_change") {
          assert.equal(res.status, 422, "a change among 1 to 4 visitors, now or before, is not explained");
          assert.match(answer.error, /fewer than 5 visitors in (this period|the period before)/);
          continue;
        }
        assert.equal(res.status, 200, `${tool} ${cohort}: ${JSON.stringify(answer)}`);
        const where = `${tool} under "${cohort}"`;
        assert.deepEqual(
          checkAnswer(answer, { identifiers: h.site.identifiers, output: outputOf(tool) }),
          [],
          where,
        );
        assert.deepEqual(ratesOfSmallGroups(answer), [], `${where}: rates of groups of fewer than 5`);
        for (const [path, key, n] of numbers(answer)) {
          if (!COUNT_NAME.test(key) || NOT_OF_A_GROUP.test(path.replace(/^notices.*/, ""))) continue;
          assert.ok(n === 0 || n >= 5, `${where}: ${path} is ${n}, a count of a group of fewer than 5`);
        }
        const viaMcp = await client.callTool({ name: tool, arguments: { ...input, cohort } });
        assert.ok(!viaMcp.isError, `${where} through MCP: ${JSON.stringify(viaMcp.content).slice(0, 300)}`);
        assert.deepEqual(
          viaMcp.structuredContent,
          { ...answer, notices: (viaMcp.structuredContent as { notices: string[] }).notices },
          where,
        );
      }
    }
    // the leaks this test was written for, by name
    const overview = await h.ask("behavior_overview", { ...QUESTIONS.behavior_overview, cohort: "was few" });
    assert.equal(overview.visitors.value, 9);
    assert.equal(overview.visitors.previous, "fewer than 5");
    const fr = overview.countries.find((c: { name: string }) => c.name === "FR");
    assert.deepEqual([fr.visitors, fr.previous_visitors], [9, "fewer than 5"]);
    const few = await h.ask("behavior_sessions", { ...QUESTIONS.behavior_sessions, cohort: "few" });
    assert.deepEqual([few.sessions, few.sessions_total], [[], "fewer than 5"]);
    assert.ok(few.notices.some((n: string) => /visits are listed only when 5 or more/.test(n)));
    const many = await h.ask("behavior_sessions", { ...QUESTIONS.behavior_sessions, cohort: "was few" });
    assert.deepEqual([many.sessions.length, many.sessions_total], [5, 9]);
    const paths = await h.ask("behavior_paths", { ...QUESTIONS.behavior_paths, cohort: "few" });
    assert.deepEqual([paths.anchor_visitors, paths.anchor_visits], ["fewer than 5", "fewer than 5"]);
    await client.close();
  } finally {
    h.close();
  }
});

Deno.test("small groups: a rate worked out from 1 to 4 visitors of a larger cohort is withheld", async () => {
  const h = await harness({ visitors: 40 });
  try {
    // 8 visitors this week looked; 3 of them bought (as a conversion, a funnel's last step, a page's exits)
    const lookers = members(h.t, "look", 8, NOW - 2 * DAY);
    const buyers = lookers.filter((e) => e.event_type === "look" && /-[0-2]$/.test(e.anonymous_id))
      .map((e) => ({ ...e, event_type: "buy", sequence_no: 5, received_at: e.received_at + 1000 }));
    await store(h.deps.kv, { events: [...lookers, ...buyers] });
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "lookers", { kind: "event", event: "look" });
    const sources = await h.ask("behavior_sources", {
      period: "last_7_days",
      cohort: "lookers",
      conversion_event: "buy",
    });
    const referral = sources.channels.find((c: { name: string }) => c.name === "Referral");
    assert.deepEqual(
      [referral.visitors, referral.conversions, referral.conversion_rate],
      [8, "fewer than 5", null],
      "3 of 8 as a rate (0.375) would tell the 3",
    );
    const funnel = await h.ask("behavior_funnel", {
      period: "last_7_days",
      cohort: "lookers",
      steps: [{ page: "/" }, { event: "look" }, { event: "buy" }],
    });
    const last = funnel.steps[2];
    assert.deepEqual(
      [last.visitors, last.conversion_from_first, last.conversion_from_previous, last.drop_off_rate],
      ["fewer than 5", null, null, null],
    );
    assert.deepEqual(
      [funnel.steps[1].visitors, funnel.steps[1].conversion_from_previous],
      [8, 1],
      "a rate of 5 or more is kept",
    );
    for (
      const [tool, input] of Object.entries(QUESTIONS).filter(([t]) => t !== "behavior_explain_change")
    ) {
      const answer = await h.ask(tool, { ...input, cohort: "lookers" });
      assert.deepEqual(ratesOfSmallGroups(answer), [], tool);
      assert.deepEqual(checkAnswer(answer, { output: outputOf(tool) }), [], tool);
    }
  } finally {
    h.close();
  }
});

Deno.test("small groups: retention's average curve does not give back a return count that reads fewer than 5", async () => {
  const h = await harness({ visitors: 60 });
  try {
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "pricing", { kind: "page", path: "/pricing" });
    const a = await h.ask("behavior_retention", { cohort: "pricing" });
    type Row = { visitors: number | string; returned: (number | string)[] | null };
    const shown = (a.cohorts as Row[]).filter((c) => typeof c.visitors === "number" && c.returned);
    const withheldAt = new Set<number>();
    for (const c of shown) c.returned!.forEach((x, d) => x === "fewer than 5" && withheldAt.add(d));
    // The site holds such counts (else the test could not fail), and a curve point built from them would
    // tell one: curve × visitors behind it, less the counts shown.
    assert.ok(withheldAt.size > 0, JSON.stringify(a.cohorts));
    for (const d of withheldAt) assert.equal(a.average_curve[d], null, `position ${d}`);
    const open = (a.average_curve as (number | null)[]).filter((x, d) => !withheldAt.has(d) && x !== null);
    assert.ok(open.length > 0, "points built from counts of 0 or 5+ are kept");
  } finally {
    h.close();
  }
});

Deno.test("small groups: every count-like field of a cohort tool's output schema is declared, as a count or as none", () => {
  const undeclared: string[] = [];
  const visit = (s: z.ZodType, path: string) => {
    // deno-lint-ignore no-explicit-any
    let d = (s as any)._zod.def;
    for (let i = 0; i < 10 && d.innerType; i++) d = d.innerType._zod.def;
    if (d.type === "object") {
      for (const [k, v] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        const p = path ? `${path}.${k}` : k;
        // deno-lint-ignore no-explicit-any
        const listOfObjects = JSON.stringify(z.toJSONSchema(v, { unrepresentable: "any" } as any)).startsWith(
          '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"type":"object"',
        );
        if (k !== "scope" && COUNT_NAME.test(k) && !listOfObjects && !declarationOf(v)) undeclared.push(p);
        if (RATE_NAME.test(k) && !declarationOf(v)) undeclared.push(`${p} (a rate)`);
        visit(v, p);
      }
    } else if (d.type === "array") visit(d.element, `${path}[]`);
    else if (d.type === "union") { for (const o of d.options) visit(o, path); }
  };
  for (const t of TOOLS) {
    if ((listing(t).input_schema.properties as Record<string, unknown>).cohort) visit(t.output, t.name);
  }
  assert.deepEqual(undeclared, []);
});
