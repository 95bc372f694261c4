/**
 * behavior_features against a plain computation over the generated records, with form interactions and a
 * second element added; through HTTP and MCP, through the answer checker, and 422 for what it cannot answer.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { toolByName } from "../../tools/registry.ts";
import { harness } from "./harness.ts";
import { countBy, distinct, humans } from "./expect.ts";
import { storeSite } from "./generate.ts";

const W28 = { from: Date.parse("2026-10-24T00:00:00Z"), to: Date.parse("2026-11-20T12:00:00Z") + 1 };

interface Expected {
  element: string;
  page: string;
  clicks: number;
  visitors: number;
  rage_clicks: number;
  rage_click_visitors_share: number | null;
  form_starts: number;
  form_submits: number;
}

/**
 * The name an event's row shows: its element's name where 5 or more visitors used that name (and it is no
 * plain name of an element not shown), else its plain name (`element_plain`), "(name withheld)" on a page
 * with events stored before that was kept.
 */
function namer(auto: StoredEvent[]) {
  const plain = (e: StoredEvent) => (e.properties.element_plain as string | undefined) ?? null;
  const shown = new Set(
    [...countBy(auto.filter((e) => e.element !== null), (e) => e.element!)]
      .filter(([, evs]) => distinct(evs.map((e) => e.anonymous_id)) >= 5).map(([name]) => name),
  );
  for (let clash = true; clash;) {
    const gone = auto.filter((e) => !shown.has(e.element!) && shown.has(plain(e)!)).map(plain);
    clash = gone.length > 0;
    for (const p of gone) shown.delete(p!);
  }
  const unknown = new Set(
    auto.filter((e) => e.element !== null && !shown.has(e.element) && plain(e) === null).map((e) => e.path),
  );
  return (e: StoredEvent) =>
    e.element !== null && shown.has(e.element)
      ? e.element
      : plain(e) ?? (unknown.has(e.path) ? "(name withheld)" : "(none)");
}

/** The answer's rows, computed plainly from the records. */
function expected(events: StoredEvent[], page?: string): Expected[] {
  const auto = events.filter((e) => e.event_type === "$autocapture" && (!page || e.path === page));
  const nameOf = namer(auto);
  /** The element an event counts on: a change that names its form counts on the form, all else on its own. */
  const homeOf = (e: StoredEvent) =>
    e.properties.action === "change" && typeof e.properties.form_element === "string"
      ? e.properties.form_element
      : nameOf(e);
  const out: Expected[] = [];
  for (const evs of countBy(auto, (e) => JSON.stringify([homeOf(e), e.path])).values()) {
    const clicks = evs.filter((e) => e.properties.action === "click");
    const rage = clicks.filter((e) => e.properties.rage_click === true);
    const visitors = distinct(clicks.map((e) => e.anonymous_id));
    out.push({
      element: homeOf(evs[0]),
      page: evs[0].path,
      clicks: clicks.length,
      visitors,
      rage_clicks: rage.length,
      rage_click_visitors_share: visitors
        ? Math.round(distinct(rage.map((e) => e.anonymous_id)) / visitors * 10000) / 10000
        : null,
      form_starts: distinct(evs.filter((e) => e.properties.action === "change").map((e) => e.session_id)),
      form_submits: evs.filter((e) => e.properties.action === "submit").length,
    });
  }
  return out;
}

const SIGNUP = "Create your account";

const sorted = (rows: Expected[]) =>
  [...rows].sort((a, b) => (a.page + a.element < b.page + b.element ? -1 : 1));

Deno.test("behavior_features: clicks, rage clicks, visitors and form use per element and page, as the records say", async () => {
  const h = await harness({ visitors: 60 });
  // On /contact, changes as stored before they named their form (on the field's row), some submits; on /signup,
  // changes naming their form on two fields, some submits of that form; a docs link clicked.
  const views = humans(h.site.events, W28).filter((e) => e.event_type === "$pageview");
  let n = 0;
  const id = () => `40000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const extra: StoredEvent[] = views.slice(0, 30).flatMap((m, i) => {
    const at = (k: number, over: Partial<StoredEvent>) =>
      ({
        ...m,
        id: id(),
        received_at: m.received_at + k * 1000,
        screen: "/contact",
        path: "/contact",
        ...over,
      }) as StoredEvent;
    const evs = [
      at(1, { event_type: "$autocapture", element: "#message", properties: { action: "change" } }),
      at(2, { event_type: "$autocapture", element: "#message", properties: { action: "change" } }),
    ];
    if (i % 4 !== 3) {
      const signup = (k: number, element: string, action: string) =>
        at(k, {
          event_type: "$autocapture",
          screen: "/signup",
          path: "/signup",
          element,
          properties: action === "change" ? { action, form_element: SIGNUP } : { action },
        });
      evs.push(signup(5, "email (input)", "change"), signup(6, "#password", "change"));
      if (i % 4 === 0) evs.push(signup(7, SIGNUP, "submit"));
    }
    if (i % 3 === 0) {
      evs.push(
        at(3, { event_type: "$autocapture", element: "Contact form", properties: { action: "submit" } }),
      );
    }
    // an account menu labelled with the visitor's own name: as stored now (with its plain name) and before
    if (i < 2) {
      evs.push(at(8, {
        event_type: "$autocapture",
        element: `${["Jane Roe", "John Smith"][i]} ▾`,
        properties: {
          action: "click",
          rage_click: false,
          ...(i === 0 ? { element_plain: "#account-menu" } : {}),
        },
      }));
    }
    if (i % 2 === 0) {
      evs.push(at(4, {
        event_type: "$autocapture",
        element: "Read the docs",
        properties: { action: "click", rage_click: false },
      }));
    }
    return evs;
  });
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const all = humans(h.site.events, W28);
  const output = toolByName("behavior_features")!.output;

  const a = await h.ask("behavior_features", { period: "last_28_days" });
  const want = expected(all);
  assert.ok(!/Jane|John/.test(JSON.stringify(a)), "a name of 1 visitor");
  assert.ok(
    want.some((e) => e.element === "#account-menu") && want.some((e) => e.element === "(name withheld)"),
  );
  assert.equal(a.elements_total, want.length);
  assert.ok(want.length <= 25, "one page of elements");
  assert.deepEqual(sorted(a.elements), sorted(want));
  for (let i = 1; i < a.elements.length; i++) assert.ok(a.elements[i - 1].clicks >= a.elements[i].clicks);
  assert.ok(a.elements.some((e: Expected) => e.element === "Contact form" && e.form_submits === 10));
  // The signup form's row holds its starts and its submits; its fields have no rows of their own.
  const form = a.elements.find((e: Expected) => e.element === SIGNUP && e.page === "/signup");
  const started = distinct(
    extra.filter((e) => e.properties.form_element === SIGNUP).map((e) => e.session_id),
  );
  assert.deepEqual([form?.form_starts, form?.form_submits], [started, 8]);
  assert.ok(started > 8, "more sessions start the form than submit it");
  assert.ok(!a.elements.some((e: Expected) => e.page === "/signup" && e.element !== SIGNUP));
  // Changes that name no form stay on the field's row.
  assert.ok(
    a.elements.some((e: Expected) => e.element === "#message" && e.form_starts > 0 && e.page === "/contact"),
  );
  assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output }), []);

  const rage = await h.ask("behavior_features", { period: "last_28_days", sort_by: "rage_clicks", limit: 3 });
  const byRage = [...want].sort((x, y) => y.rage_clicks - x.rage_clicks);
  assert.deepEqual(
    rage.elements.map((e: Expected) => e.rage_clicks),
    byRage.slice(0, 3).map((e) => e.rage_clicks),
  );
  assert.ok(rage.elements[0].rage_clicks > 0);

  const one = await h.ask("behavior_features", { period: "last_28_days", page: "/contact" });
  assert.deepEqual(sorted(one.elements), sorted(expected(all, "/contact")));
  assert.equal(one.scope.page, "/contact");
  assert.deepEqual(checkAnswer(one, { identifiers: h.site.identifiers, output }), []);

  // The same answer through MCP.
  const client = new Client({ name: "features", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  const viaMcp = await client.callTool({
    name: "behavior_features",
    arguments: { period: "last_28_days", page: "/contact" },
  });
  assert.deepEqual(viaMcp.structuredContent, one);
  await client.close();

  for (const bad of [{ sort_by: "selector" }, { page: "contact" }, { limit: 0 }, { period: "someday" }]) {
    const res = await h.askRaw("behavior_features", bad);
    assert.equal(res.status, 422, JSON.stringify(bad));
    await res.body?.cancel();
  }
  h.close();
});
