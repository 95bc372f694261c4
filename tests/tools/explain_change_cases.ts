/**
 * behavior_explain_change against a plain computation over the generated records (each visitor or session
 * under its first event's values), contributions that add up, a planted change found first (one source
 * doubled, one device's conversion raised) through HTTP and MCP, a period with no change, and 422s.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { checkAnswer } from "../../lib/answers/check.ts";
import { keys } from "../../lib/store/keys.ts";
import type { StoredEvent } from "../../lib/store/records.ts";
import { toolByName } from "../../tools/registry.ts";
import { countBy, DAY, LAST7, PREV7 } from "./expect.ts";
import { type Answer, firstOf, verify, type Window } from "./explain_expect.ts";
import { storeSite } from "./generate.ts";
import { type Harness, harness } from "./harness.ts";

async function mcpClient(h: Harness) {
  const client = new Client({ name: "explain", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://read.test/mcp"), {
      fetch: (url, init) => Promise.resolve(h.app.fetch(new Request(url, init))),
      requestInit: { headers: { authorization: `Bearer ${h.t.readKey}` } },
    }),
  );
  return client;
}

Deno.test("behavior_explain_change: totals, segments and contributions as the records say, for every metric", async () => {
  const h = await harness({ visitors: 150 });
  const output = toolByName("behavior_explain_change")!.output;
  const asks: [string, string | undefined][] = [
    ["visitors", undefined],
    ["sessions", undefined],
    ["pageviews", undefined],
    ["bounce_rate", undefined],
    ["conversion_rate", "sign_up"],
  ];
  for (const [metric, goal] of asks) {
    const a = await h.ask("behavior_explain_change", {
      period: "last_7_days",
      metric,
      ...(goal ? { conversion_event: goal } : {}),
      segments_per_dimension: 3,
    });
    assert.equal(a.dimensions.length, 6);
    verify(a, h.site.events, LAST7, PREV7, goal);
    assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers, output }), [], metric);
    assert.ok(a.drivers.length > 0 && a.drivers.length <= 5, metric);
    for (let i = 1; i < a.drivers.length; i++) {
      assert.ok(Math.abs(a.drivers[i - 1].contribution) >= Math.abs(a.drivers[i].contribution));
    }
  }
  h.close();
});

/** Replaces the events of `now` by a copy of those of the window 7 days before: nothing changed. */
async function copyWeek(h: Harness, now: Window): Promise<StoredEvent[]> {
  const gone = h.site.events.filter((e) => e.received_at >= now.from && e.received_at < now.to);
  for (const e of gone) await h.deps.kv.delete(keys.rawEvent(e.org, e.env, e.received_at, e.id));
  let n = 0;
  const copies = h.site.events
    .filter((e) => e.received_at >= now.from - 7 * DAY && e.received_at < now.to - 7 * DAY)
    .map((e) => ({
      ...e,
      id: `50000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
      received_at: e.received_at + 7 * DAY,
    }));
  await storeSite(h.deps.kv, { events: copies, hits: [], identifiers: [] });
  h.site.events = [...h.site.events.filter((e) => !gone.includes(e)), ...copies];
  return copies;
}

const WEEK = { from: Date.parse("2026-11-08T00:00:00Z"), to: Date.parse("2026-11-15T00:00:00Z") };
const WEEK_BEFORE = { from: WEEK.from - 7 * DAY, to: WEEK.from };
const PERIOD = "2026-11-08..2026-11-14";

Deno.test("behavior_explain_change: a week like the one before has no change and no drivers", async () => {
  const h = await harness({ visitors: 120, seed: 11 });
  await copyWeek(h, WEEK);
  for (const metric of ["visitors", "pageviews", "bounce_rate"]) {
    const a = await h.ask("behavior_explain_change", { period: PERIOD, metric });
    assert.equal(a.total.difference, 0, metric);
    assert.ok(a.total.value > 0);
    assert.deepEqual(a.drivers, []);
    assert.match(a.summary, /did not change/);
    for (const d of a.dimensions) for (const s of d.segments) assert.equal(s.contribution, 0);
    verify(a, h.site.events, WEEK, WEEK_BEFORE);
  }
  h.close();
});

Deno.test("behavior_explain_change: a doubled source and a device's raised conversion are found first (HTTP and MCP)", async () => {
  const h = await harness({ visitors: 120, seed: 11 });
  const copies = await copyWeek(h, WEEK);
  // Every newsletter visitor of the week comes twice: a second visitor with the same visits.
  let n = 0;
  const id = () => `60000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const newsletter = copies.filter((e) => e.source === "newsletter");
  const doubled = newsletter.map((e) => ({
    ...e,
    id: id(),
    anonymous_id: `${e.anonymous_id}-twin`,
    session_id: `${e.session_id}-twin`,
  }));
  // Every tablet session of the week signs up, a second after its first pageview (same session).
  const tablet = [
    ...countBy([...copies, ...doubled].filter((e) => e.device_type === "tablet"), (e) => e.session_id)
      .values(),
  ]
    .map((evs) => firstOf(evs))
    .map((e) => ({
      ...e,
      id: id(),
      event_type: "sign_up",
      received_at: e.received_at + 1,
      sequence_no: e.sequence_no + 1000,
      properties: { plan: "pro" },
    }));
  const extra = [...doubled, ...tablet];
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const identifiers = [...h.site.identifiers, ...doubled.map((e) => e.anonymous_id)];
  const output = toolByName("behavior_explain_change")!.output;
  const planted = new Set(newsletter.map((e) => e.anonymous_id)).size;
  assert.ok(planted >= 5, "enough newsletter visitors to plant a change");

  const a = await h.ask("behavior_explain_change", { period: PERIOD });
  assert.equal(a.total.difference, planted);
  assert.deepEqual(
    a.drivers.slice(0, 2).map((d: Answer) => [d.dimension, d.name, d.contribution]).sort(),
    [["channel", "Email", planted], ["source", "newsletter", planted]],
  );
  assert.equal(a.drivers[0].contribution_share, 1);
  assert.match(a.drivers[0].finding, new RegExp(`\\+${planted} of the total \\+${planted}`));
  assert.match(a.summary, /rose/);
  const bySource = a.dimensions.find((d: Answer) => d.dimension === "source");
  assert.equal(bySource.segments[0].name, "newsletter");
  assert.equal(bySource.segments[0].value, 2 * bySource.segments[0].previous);
  verify(a, h.site.events, WEEK, WEEK_BEFORE);
  assert.deepEqual(checkAnswer(a, { identifiers, output }), []);

  const conv = { period: PERIOD, metric: "conversion_rate", conversion_event: "sign_up" };
  const c = await h.ask("behavior_explain_change", conv);
  verify(c, h.site.events, WEEK, WEEK_BEFORE, "sign_up");
  assert.ok(c.total.difference > 0);
  assert.deepEqual([c.drivers[0].dimension, c.drivers[0].name, c.drivers[0].effect], [
    "device",
    "tablet",
    "rate",
  ]);
  assert.equal(c.drivers[0].value, 1, "every tablet visitor converted");
  assert.match(c.drivers[0].finding, /own rate moved/);
  // The doubled newsletter visitors raised that source's share: mix, for a source whose rate stayed.
  const src = c.dimensions.find((d: Answer) => d.dimension === "source");
  const nl = src.segments.find((s: Answer) => s.name === "newsletter");
  assert.ok(nl.units.value === 2 * nl.units.previous && Math.abs(nl.mix) > 0);
  assert.deepEqual(checkAnswer(c, { identifiers, output }), []);

  const client = await mcpClient(h);
  for (const input of [{ period: PERIOD }, conv]) {
    const viaMcp = await client.callTool({ name: "behavior_explain_change", arguments: input });
    assert.deepEqual(viaMcp.structuredContent, await h.ask("behavior_explain_change", input));
  }
  const listed = await client.listTools();
  assert.ok(listed.tools.some((t) => t.name === "behavior_explain_change"));
  await client.close();
  h.close();
});

Deno.test("behavior_explain_change: 422 for what it cannot answer as asked", async () => {
  const h = await harness({ visitors: 10 });
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ metric: "conversion_rate" }, /conversion_event/],
    [{ metric: "visitors", conversion_event: "sign_up" }, /only with metric conversion_rate/],
    [{ metric: "revenue" }, /metric/],
    [{ dimensions: [] }, /dimensions/],
    [{ dimensions: ["city"] }, /dimensions/],
    [{ segments_per_dimension: 11 }, /segments_per_dimension/],
    [{ period: "someday" }, /period/],
    [{ page: "/pricing" }, /page|unrecognized/i],
  ];
  for (const [input, message] of cases) {
    const res = await h.askRaw("behavior_explain_change", input);
    const body = await res.json();
    assert.equal(res.status, 422, JSON.stringify(input));
    assert.match(body.error, message, JSON.stringify(body));
  }
  const list = await (await h.app.request("/v1/read", {
    headers: { authorization: `Bearer ${h.t.readKey}` },
  })).json();
  assert.ok(list.tools.some((t: Answer) => t.name === "behavior_explain_change"));
  const spec = await (await h.app.request("/openapi.json")).json();
  assert.ok(JSON.stringify(spec).includes("behavior_explain_change"));
  h.close();
});
