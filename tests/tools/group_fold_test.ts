/**
 * Rule 5 by subtraction: under a saved cohort or a filter on an event property, a breakdown that splits the
 * visitors one way each (country, device, source, a funnel or trends split) must not let the answer's own
 * whole less its exact groups tell a group of 1 to 4. Planted: the cohort ("did vip") is 9 visitors from FR
 * (desktop, AI Assistant / Perplexity), 6 from GB (mobile, Direct) and 3 from DE (tablet, AI Assistant /
 * ChatGPT) this week, and 7 FR, 3 GB and 6 DE the week before; 20 more FR visitors outside it. Without the fold, DE
 * (3) and GB the week before (3) were the whole less the others. Asked through the HTTP read API over a KV
 * file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { checkAnswer } from "../../lib/answers/check.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { toolByName } from "../../tools/registry.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { saveCohort } from "../helpers/saved.ts";
import { createTenant } from "../helpers/tenant.ts";
import { ev, store } from "../lib/query/fixtures.ts";
import { DAY } from "./expect.ts";
import { NOW } from "./generate.ts";

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Answer = Record<string, any>;

const GROUPS: {
  country: string;
  device: StoredEvent["device_type"];
  channel: StoredEvent["channel"];
  source: string;
  now: number;
  before: number;
  step2: number;
}[] = [
  {
    country: "FR",
    device: "desktop",
    channel: "AI Assistant",
    source: "Perplexity",
    now: 9,
    before: 7,
    step2: 7,
  },
  { country: "GB", device: "mobile", channel: "Direct", source: "(direct)", now: 6, before: 3, step2: 6 },
  {
    country: "DE",
    device: "tablet",
    channel: "AI Assistant",
    source: "ChatGPT",
    now: 3,
    before: 6,
    step2: 3,
  },
];

function plant(org: string, touchpoint: string): StoredEvent[] {
  const out: StoredEvent[] = [];
  const visit = (g: (typeof GROUPS)[number], anon: string, at: number, vip: boolean, step2: boolean) => {
    const base = {
      org,
      touchpoint,
      anonymous_id: anon,
      session_id: `${anon}-${at}`,
      geo: { country: g.country, city: null, asn: null, as_org: null },
      device_type: g.device,
      channel: g.channel,
      source: g.source,
      path: "/",
    };
    out.push(ev({ ...base, received_at: at }));
    // then one page per country: the step after "/"
    out.push(ev({ ...base, path: `/${g.country.toLowerCase()}`, received_at: at + 500, sequence_no: 3 }));
    if (vip) {
      out.push(
        ev({
          ...base,
          received_at: at + 1000,
          sequence_no: 1,
          event_type: "vip",
          properties: { plan: "pro" },
        }),
      );
    }
    if (step2) out.push(ev({ ...base, received_at: at + 2000, sequence_no: 2, event_type: "vip2" }));
  };
  for (const g of GROUPS) {
    for (let i = 0; i < g.now; i++) {
      visit(g, `m-${g.country}-${i}`, NOW - 7_200_000 + i * 10_000, true, i < g.step2);
    }
    for (let i = 0; i < g.before; i++) {
      visit(g, `m-${g.country}-${i}`, NOW - 7 * DAY - 7_200_000 + i, true, false);
    }
  }
  for (let i = 0; i < 20; i++) visit(GROUPS[0], `out-${i}`, NOW - 3 * 3_600_000 + i, false, false);
  return out;
}

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "group-fold-" });
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  const deps = await testDeps({ kv });
  deps.config = { ...deps.config, readKeyRatePerMinute: 100_000 } as typeof deps.config;
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN, { timezone: "UTC" });
  await store(kv, { events: plant(t.org, t.touchpoint) });
  await saveCohort(deps, t.org, t.touchpoint, "VIP", { kind: "event", event: "vip" });
  const ask = async (tool: string, input: Json): Promise<Answer> => {
    const res = await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    const body = await res.json();
    assert.equal(res.status, 200, `${tool}: ${JSON.stringify(body)}`);
    assert.deepEqual(checkAnswer(body, { output: toolByName(tool)!.output }), [], tool);
    return body;
  };
  return {
    ask,
    close: async () => {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** What subtraction tells: the whole less the list's exact figures, when that is 1 to 4 (a small group). */
function recovered(where: string, whole: unknown, figures: unknown[], out: string[]) {
  if (typeof whole !== "number") return;
  const rest = whole - figures.reduce((n: number, x) => n + (typeof x === "number" ? x : 0), 0);
  if (rest > 0 && rest < 5) out.push(`${where}: ${whole} less the others tells ${rest}`);
}

const names = (list: Answer[]) => Object.fromEntries(list.map((x) => [x.name, x.visitors]));

Deno.test("under a cohort, no 1-4 group is the whole less the other groups (overview, funnel, trends, paths, sources)", async () => {
  const s = await setup();
  try {
    const leaks: string[] = [];
    const period = "last_7_days";
    const o = await s.ask("behavior_overview", { cohort: "VIP", period });
    assert.equal(o.visitors.value, 18);
    for (const list of ["countries", "devices", "sources"]) {
      recovered(`overview ${list}`, o.visitors.value, o[list].map((x: Answer) => x.visitors), leaks);
      recovered(
        `overview ${list} before`,
        o.visitors.previous,
        o[list].map((x: Answer) => x.previous_visitors),
        leaks,
      );
    }
    const f = await s.ask("behavior_funnel", {
      cohort: "VIP",
      period,
      steps: [{ event: "vip" }, { event: "vip2" }],
      split_by: "country",
    });
    assert.equal(f.steps[0].visitors, 18);
    f.steps.forEach((st: Answer, k: number) =>
      recovered(`funnel step ${k + 1}`, st.visitors, f.splits.map((x: Answer) => x.steps[k].visitors), leaks)
    );
    const t = await s.ask("behavior_trends", { cohort: "VIP", period, split_by: "country" });
    recovered("trends splits", t.total.value, t.splits.map((x: Answer) => x.visitors), leaks);
    for (const p of t.series) {
      if (p.by) recovered(`trends ${p.bucket}`, p.visitors, Object.values(p.by), leaks);
    }
    const pa = await s.ask("behavior_paths", { cohort: "VIP", period, page: "/" });
    recovered(
      "paths nearest steps",
      pa.anchor_visitors,
      pa.nearest_steps.map((x: Answer) => x.visitors),
      leaks,
    );
    const src = await s.ask("behavior_sources", { cohort: "VIP", period });
    const ai = src.channels.find((x: Answer) => x.name === "AI Assistant");
    if (ai) {
      recovered(
        "sources AI engines",
        ai.visitors,
        src.ai_answer_engines.map((x: Answer) => x.visitors),
        leaks,
      );
    }
    assert.deepEqual(leaks, [], leaks.join("\n"));

    // what is shown is true: FR named, the rest folded into (other) of 9, and a notice says why
    assert.deepEqual(names(o.countries), { FR: 9, "(other)": 9 });
    assert.deepEqual(names(o.devices), { desktop: 9, "(other)": 9 });
    const other = o.countries.find((x: Answer) => x.name === "(other)");
    assert.equal(other.previous_visitors, 9, "the week before: GB's 3 and DE's 6, GB not named");
    assert.ok(o.notices.some((n: string) => /\(other\)/.test(n)), o.notices.join("; "));
    assert.deepEqual(names(f.splits), { FR: 9, "(other)": 9 });
    assert.equal(f.splits.find((x: Answer) => x.name === "(other)").steps[1].visitors, 9);
    assert.deepEqual(names(t.splits), { FR: 9, "(other)": 9 });
    assert.deepEqual(names(pa.nearest_steps), { "/fr": 9, "(other)": 9 });

    // the answer checker reads the same declaration: the unfolded list fails it
    const unfolded = structuredClone(o);
    unfolded.countries = [
      { name: "FR", visitors: 9, previous_visitors: 7 },
      { name: "GB", visitors: 6, previous_visitors: "fewer than 5" },
      { name: "DE", visitors: "fewer than 5", previous_visitors: 6 },
    ];
    const found = checkAnswer(unfolded, { output: toolByName("behavior_overview")!.output });
    assert.ok(found.some((x) => /^countries: 18 less .* tells 3/.test(x)), found.join("; "));
    assert.ok(found.some((x) => /^countries: 16 less .* tells 3/.test(x)), found.join("; "));
  } finally {
    await s.close();
  }
});

Deno.test("under a property filter, no 1-4 group is the whole less the other groups (trends, funnel)", async () => {
  const s = await setup();
  try {
    const leaks: string[] = [];
    const period = "last_7_days";
    const t = await s.ask("behavior_trends", {
      period,
      event: "vip",
      property: "plan",
      property_value: "pro",
      split_by: "country",
    });
    assert.equal(t.total.value, 18);
    recovered("trends splits", t.total.value, t.splits.map((x: Answer) => x.visitors), leaks);
    for (const p of t.series) {
      if (p.by) recovered(`trends ${p.bucket}`, p.visitors, Object.values(p.by), leaks);
    }
    const te = await s.ask("behavior_trends", {
      period,
      event: "vip",
      metric: "events",
      property: "plan",
      property_value: "pro",
      split_by: "device",
    });
    // DE's 3 visitors sent 3 events: an events figure of a group of 1 to 4 visitors
    recovered("trends events splits", te.total.value, te.splits.map((x: Answer) => x.events), leaks);
    const f = await s.ask("behavior_funnel", {
      period,
      steps: [{ event: "vip", property: "plan", value: "pro" }, { event: "vip2" }],
      split_by: "device",
    });
    f.steps.forEach((st: Answer, k: number) =>
      recovered(`funnel step ${k + 1}`, st.visitors, f.splits.map((x: Answer) => x.steps[k].visitors), leaks)
    );
    assert.deepEqual(leaks, [], leaks.join("\n"));
    assert.deepEqual(names(t.splits), { FR: 9, "(other)": 9 });
  } finally {
    await s.close();
  }
});

Deno.test("without a cohort or a property filter, groups stay exact and unfolded (rule 5)", async () => {
  const s = await setup();
  try {
    const period = "last_7_days";
    const o = await s.ask("behavior_overview", { period });
    assert.deepEqual(names(o.countries), { FR: 29, GB: 6, DE: 3 });
    assert.deepEqual(names(o.devices), { desktop: 29, mobile: 6, tablet: 3 });
    const t = await s.ask("behavior_trends", { period, split_by: "country" });
    assert.deepEqual(names(t.splits), { FR: 29, GB: 6, DE: 3 });
    const p = t.series.find((x: Answer) => x.by && x.by.DE);
    assert.equal(p.by.DE, 3);
    const f = await s.ask("behavior_funnel", {
      period,
      steps: [{ event: "vip" }, { event: "vip2" }],
      split_by: "country",
    });
    assert.deepEqual(names(f.splits), { FR: 9, GB: 6, DE: 3 });
    assert.ok(!o.notices.some((n: string) => /\(other\)/.test(n)));
  } finally {
    await s.close();
  }
});
