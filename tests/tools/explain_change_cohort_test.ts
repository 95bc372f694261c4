/**
 * behavior_explain_change under a saved cohort: totals and segments are the cohort's visitors' (as computed
 * plainly from the records, so an ignored cohort fails), segments of 1 to 4 of its visitors in either period
 * are part of (other), which never holds 1 to 4 itself (groups of 1, 4, 5 and 6 planted), and a cohort of 1 to
 * 4 visitors is a 422.
 */
import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { toolByName } from "../../tools/registry.ts";
import { saveCohort } from "../helpers/saved.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { DAY, humans, LAST7, PREV7 } from "./expect.ts";
import { type Answer, behind, totalTells, verify, type Window } from "./explain_expect.ts";
import { NOW } from "./generate.ts";
import { harness } from "./harness.ts";

const METRICS: [string, string | undefined][] = [
  ["visitors", undefined],
  ["sessions", undefined],
  ["pageviews", undefined],
  ["bounce_rate", undefined],
  ["conversion_rate", "$autocapture"],
];
const output = toolByName("behavior_explain_change")!.output;
const small = (n: number) => n > 0 && n < 5;

/** The events of the cohort's members in one window: those who did `event` in it. */
function membersEvents(events: StoredEvent[], w: Window, event: string): StoredEvent[] {
  const inWindow = humans(events, w);
  const members = new Set(inWindow.filter((e) => e.event_type === event).map((e) => e.anonymous_id));
  return inWindow.filter((e) => members.has(e.anonymous_id));
}

/** Every named segment, and (other), has 0 or 5+ visitors behind its figures in each period. */
function assertNoSmallNamed(a: Answer, events: StoredEvent[]) {
  for (const d of a.dimensions) {
    for (const [w, which] of [[LAST7, "now"], [PREV7, "before"]] as const) {
      const by = behind(events, w, a.metric, d.dimension);
      if (d.segments.some((x: Answer) => x.name === "(other)")) {
        const named = new Set(d.segments.map((x: Answer) => x.name));
        const placed = new Set<string>(), viewers = new Set<string>();
        for (const [value, b] of by) {
          if (named.has(value)) continue;
          for (const v of b.placed) placed.add(v);
          for (const v of b.viewers) viewers.add(v);
        }
        assert.ok(
          !small(placed.size),
          `${a.metric} ${d.dimension} (other) ${which}: ${placed.size} visitors`,
        );
        if (a.metric === "pageviews") {
          assert.ok(!small(viewers.size), `${a.metric} ${d.dimension} (other) ${which}: viewers`);
        }
      }
      for (const s of d.segments.filter((x: Answer) => x.name !== "(other)")) {
        const b = by.get(s.name);
        assert.ok(
          !small(b?.placed.size ?? 0),
          `${a.metric} ${d.dimension} ${s.name} ${which}: units' visitors`,
        );
        if (a.metric === "pageviews") {
          assert.ok(!small(b?.viewers.size ?? 0), `${a.metric} ${d.dimension} ${s.name} ${which}: viewers`);
        }
      }
    }
  }
}

Deno.test("explain_change under a cohort: the cohort's visitors only, as the records say, no small segment named", async () => {
  const h = await harness({ visitors: 150 });
  try {
    await saveCohort(h.deps, h.t.org, h.t.touchpoint, "Signed up", { kind: "event", event: "sign_up" });
    // the cohort is evaluated over each period: who signed up in the week, who signed up in the week before
    const mine = [
      ...membersEvents(h.site.events, LAST7, "sign_up"),
      ...membersEvents(h.site.events, PREV7, "sign_up"),
    ];
    const visitorsIn = (evs: StoredEvent[], w: Window) =>
      new Set(humans(evs, w).map((e) => e.anonymous_id)).size;
    assert.ok(visitorsIn(mine, LAST7) >= 5 && visitorsIn(mine, PREV7) >= 5, "a cohort the tool explains");
    assert.ok(visitorsIn(mine, LAST7) < visitorsIn(h.site.events, LAST7), "a cohort smaller than everyone");
    let folded = 0;
    for (const [metric, goal] of METRICS) {
      const input = { period: "last_7_days", metric, ...(goal ? { conversion_event: goal } : {}) };
      if (totalTells(mine, LAST7, PREV7, metric, goal)) {
        // the cohort's rate would tell 1 to 4 who did it or not: refused, naming why
        const res = await h.askRaw("behavior_explain_change", { ...input, cohort: "Signed up" });
        const body = await res.json();
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.match(JSON.stringify(body), /small-group rule/);
        continue;
      }
      const a = await h.ask("behavior_explain_change", {
        ...input,
        cohort: "Signed up",
        segments_per_dimension: 10,
      });
      assert.match(a.scope.filter, /^saved cohort "Signed up": did sign_up/);
      verify(a, mine, LAST7, PREV7, goal);
      assertNoSmallNamed(a, mine);
      assert.ok(a.notices.some((n: string) => n.includes("1 to 4 of its visitors")), metric);
      assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output }), [], metric);
      if (metric === "visitors") {
        assert.equal(a.total.value, visitorsIn(mine, LAST7));
        assert.equal(a.total.previous, visitorsIn(mine, PREV7));
      }
      folded += a.dimensions.filter((d: Answer) =>
        d.segments.some((s: Answer) => s.name === "(other)")
      ).length;
      // the same question without the cohort counts everyone
      const all = await h.ask("behavior_explain_change", input);
      assert.notDeepEqual(all.total, a.total, metric);
    }
    assert.ok(folded > 0, "small segments were folded into (other)");
  } finally {
    h.close();
  }
});

/** Planted visitors, each with one session (a pageview, `vip` and `vip_<group>`), `solo` one with five. */
function plant(org: string, touchpoint: string): StoredEvent[] {
  const groups: [string, number, number][] = [
    ["one", 1, 0],
    ["four", 4, 0],
    ["five", 5, 5],
    ["six", 6, 0],
    ["shrunk", 6, 3],
  ];
  const out: StoredEvent[] = [];
  const visit = (group: string, anon: string, session: string, at: number) => {
    const base = { org, touchpoint, anonymous_id: anon, session_id: session, path: `/${group}` };
    out.push(ev({ ...base, received_at: at }));
    out.push(ev({ ...base, received_at: at + 1000, sequence_no: 1, event_type: "vip" }));
    out.push(ev({ ...base, received_at: at + 2000, sequence_no: 2, event_type: `vip_${group}` }));
  };
  for (const [group, now, before] of groups) {
    for (let i = 0; i < now; i++) {
      visit(group, `vip-${group}-${i}`, `vip-${group}-${i}-now`, NOW - 7_200_000 + i);
    }
    for (let i = 0; i < before; i++) {
      visit(group, `vip-${group}-${i}`, `vip-${group}-${i}-before`, NOW - 7 * DAY - 7_200_000 + i);
    }
  }
  // one visitor with five sessions: five sessions, but one visitor, behind /solo
  for (let s = 0; s < 5; s++) visit("solo", "vip-solo", `vip-solo-${s}`, NOW - 3 * 3_600_000 - s * 60_000);
  return out;
}

Deno.test("explain_change under a cohort: segments of 1, 4, 5 and 6 visitors; cohorts of 1 to 4 are a 422", async () => {
  const h = await harness({ visitors: 20 });
  try {
    const planted = plant(h.t.org, h.t.touchpoint);
    await store(h.deps.kv, { events: planted });
    for (const g of ["", "_one", "_four", "_five", "_six", "_shrunk"]) {
      await saveCohort(h.deps, h.t.org, h.t.touchpoint, `vip${g}`, { kind: "event", event: `vip${g}` });
    }
    for (const metric of ["visitors", "sessions", "pageviews"]) {
      const a = await h.ask("behavior_explain_change", {
        cohort: "vip",
        period: "last_7_days",
        metric,
        dimensions: ["page", "device"],
        segments_per_dimension: 10,
      });
      verify(a, planted, LAST7, PREV7);
      assertNoSmallNamed(a, planted);
      const pages = a.dimensions.find((d: Answer) => d.dimension === "page").segments;
      // /one (1), /four (4), /shrunk (3 the week before) and /solo (5 sessions of 1 visitor) are not named; and
      // (other) would then hold 3 visitors the week before, so /five (5 then, the only other page with any)
      // joins it
      assert.deepEqual(pages.map((s: Answer) => s.name).sort(), ["(other)", "/six"], metric);
      const other = pages.find((s: Answer) => s.name === "(other)");
      const six = pages.find((s: Answer) => s.name === "/six");
      if (metric === "visitors") {
        assert.deepEqual([a.total.value, a.total.previous], [23, 8]);
        assert.deepEqual([other.value, other.previous], [1 + 4 + 6 + 1 + 5, 3 + 5]);
        assert.deepEqual([six.value, six.previous], [6, 0]);
      }
      if (metric === "sessions") assert.deepEqual([other.value, other.previous], [1 + 4 + 6 + 5 + 5, 3 + 5]);
      // every visitor is on a desktop: one segment of 23 and 8 visitors, named
      const devices = a.dimensions.find((d: Answer) => d.dimension === "device").segments;
      assert.deepEqual(devices.map((s: Answer) => s.name), ["desktop"]);
      assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output }), [], metric);
    }
    // the cohort's own size: 1 and 4 this week, or 3 the week before, are not explained; 5 and 6 are
    const sizes: [string, RegExp | [number, number]][] = [
      ["vip_one", /in this period/],
      ["vip_four", /in this period/],
      ["vip_shrunk", /in the period before/],
      ["vip_five", [5, 5]],
      ["vip_six", [6, 0]],
    ];
    for (const [cohort, expected] of sizes) {
      const input = { cohort, period: "last_7_days" };
      if (expected instanceof RegExp) {
        const res = await h.askRaw("behavior_explain_change", input);
        const body = await res.json();
        assert.equal(res.status, 422, cohort);
        assert.match(body.error, expected, cohort);
        assert.match(body.error, /fewer than 5 visitors/);
        assert.doesNotMatch(body.error, /\b[1-4] visitors/);
      } else {
        const a = await h.ask("behavior_explain_change", input);
        assert.deepEqual([a.total.value, a.total.previous], expected, cohort);
      }
    }
    // the input is published where tools are listed: GET /v1/read (as MCP lists them) and openapi.json
    const list = await (await h.app.request("/v1/read", {
      headers: { authorization: `Bearer ${h.t.readKey}` },
    })).json();
    const listed = list.tools.find((t: Answer) => t.name === "behavior_explain_change");
    assert.match(listed.input_schema.properties.cohort.description, /part of \(other\)/);
    const spec = await (await h.app.request("/openapi.json")).json();
    const body = spec.paths["/v1/read/behavior_explain_change"].post.requestBody.content["application/json"];
    assert.equal(body.schema.properties.cohort.type, "string");
  } finally {
    h.close();
  }
});
