/**
 * The MCP Apps views draw what the answer says: a figure the answer gives as "fewer than 5" (spec rule 5, under
 * a property filter) or withholds (null) is drawn as such, never as 0. Real answers from the read API on a real
 * KV file, rendered by views/render.ts in linkedom's DOM.
 */
import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { event } from "../helpers/events.ts";

const { document, window } = parseHTML("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { document, window, HTMLElement: window.HTMLElement, Node: window.Node });
const { render } = await import("../../views/render.ts");

type Obj = Record<string, unknown>;

async function world() {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  deps.config = { ...deps.config, trustProxy: true, readKeyRatePerMinute: 1e6 } as typeof deps.config;
  deps.clock.set(Date.parse("2026-11-18T10:00:00Z"));
  const app = createApp(deps);
  const t = await createTenant(app, TEST_ADMIN_TOKEN);
  let n = 0;
  /** One visitor: a pageview and a signup with plan=pro, and a purchase when `buy`. */
  const visit = async (day: string, buy: boolean) => {
    const id = { anonymous_id: `v${n}`, session_id: `s${n}` };
    n++;
    deps.clock.set(Date.parse(`${day}T10:${String(n).padStart(2, "0")}:00Z`));
    const batch = [
      event({ ...id, sequence_no: 0, properties: { path: "/", url: "https://acme.test/" } }),
      event({ ...id, sequence_no: 1, event_type: "signup", properties: { path: "/", plan: "pro" } }),
      ...(buy ? [event({ ...id, sequence_no: 2, event_type: "purchase", properties: { path: "/" } })] : []),
    ];
    const res = await app.request("/v1/behavior/events", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "https://acme.test",
        "x-forwarded-for": `81.2.69.${n}`,
      },
      body: JSON.stringify({ api_key: t.publicKey, batch }),
    });
    assert.equal(res.status, 204, await res.text());
  };
  const read = async (tool: string, args: Obj) => {
    const res = await app.request(`/v1/read/${tool}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
      body: JSON.stringify(args),
    });
    const answer = await res.json();
    assert.equal(res.status, 200, JSON.stringify(answer));
    return answer as Obj;
  };
  const close = async () => {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { visit, read, close };
}

/** Every mark of a view: data-label, data-value, and its <title>. */
function drawn(tool: string, answer: Obj, args: Obj) {
  const root = document.createElement("div");
  for (const x of render({ tool, answer, args, width: 600, ask: () => Promise.resolve(null) })) {
    root.append(x);
  }
  return [...root.querySelectorAll("[data-value]")].map((e) => ({
    label: e.getAttribute("data-label") ?? "",
    value: e.getAttribute("data-value") ?? "",
    title: e.querySelector("title")?.textContent ?? "",
    text: e.textContent ?? "",
  }));
}

Deno.test("views: a trend point or funnel step of 'fewer than 5' is drawn as that, never as 0", async () => {
  const w = await world();
  try {
    for (let i = 0; i < 6; i++) await w.visit("2026-11-18", i < 2); // 6 sign up, 2 of them buy
    for (let i = 0; i < 2; i++) await w.visit("2026-11-19", false); // 2 more sign up the next day
    const period = "2026-11-16..2026-11-22";

    const trendArgs = { period, event: "signup", property: "plan", property_value: "pro" };
    const trend = await w.read("behavior_trends", trendArgs);
    const series = trend.series as Obj[];
    assert.equal(
      series.find((p) => p.bucket === "2026-11-19")?.visitors,
      "fewer than 5",
      "the answer's own figure",
    );
    const points = drawn("behavior_trends", trend, trendArgs);
    const day19 = points.find((m) => m.label === "2026-11-19")!;
    assert.equal(day19.value, "fewer than 5", JSON.stringify(day19));
    assert.match(day19.title, /2026-11-19: fewer than 5/);
    // the 18th's 6 is withheld beside it (the total less it would tell the 2): drawn as withheld, not as 0
    assert.equal(series.find((p) => p.bucket === "2026-11-18")?.visitors, null);
    assert.equal(points.find((m) => m.label === "2026-11-18")?.value, "");
    assert.equal(points.find((m) => m.label === "2026-11-16")?.value, "0", "a real 0 stays 0");

    const funnelArgs = {
      period,
      steps: [{ event: "signup", property: "plan", value: "pro" }, { event: "purchase" }],
    };
    const funnel = await w.read("behavior_funnel", funnelArgs);
    assert.equal((funnel.steps as Obj[])[1].visitors, "fewer than 5");
    const steps = drawn("behavior_funnel", funnel, funnelArgs);
    const purchase = steps.find((m) => m.label === "2. purchase")!;
    assert.equal(purchase.value, "fewer than 5", JSON.stringify(purchase));
    assert.match(purchase.title, /2\. purchase: fewer than 5/);
    assert.doesNotMatch(purchase.text, /: 0\b|^0$/);
    assert.equal(steps.find((m) => m.label === "1. signup where plan = pro")?.value, "8");
    for (const m of [...points, ...steps]) {
      if (m.value === "fewer than 5") assert.doesNotMatch(m.title, /: 0( |$)/, JSON.stringify(m));
    }
  } finally {
    await w.close();
  }
});

Deno.test("views: a retention cohort whose rates are withheld (fewer than 5 visitors) is drawn, not a throw", async () => {
  const w = await world();
  try {
    for (let i = 0; i < 6; i++) await w.visit("2026-11-16", false);
    for (let i = 0; i < 2; i++) await w.visit("2026-11-17", false); // a day cohort of 2
    const args = { period: "2026-11-16..2026-11-22" };
    const answer = await w.read("behavior_retention", args);
    const cohorts = answer.cohorts as Obj[];
    assert.ok(cohorts.some((c) => c.rates === null), JSON.stringify(cohorts).slice(0, 400));
    const marks = drawn("behavior_retention", answer, args); // threw on null rates before
    assert.ok(marks.length > 0);
    for (const m of marks) assert.doesNotMatch(m.value, /NaN|undefined/);
  } finally {
    await w.close();
  }
});
