import assert from "node:assert/strict";
import { harness } from "./harness.ts";
import { storeSite } from "./generate.ts";
import { ev } from "../lib/query/fixtures.ts";
import { countBy, distinct, humans, LAST7, PREV7, sessionsOf, within } from "./expect.ts";
import { event } from "../helpers/events.ts";
import type { StoredEvent } from "../../lib/store/records.ts";

/** Missing sequence numbers inside page loads: per session, by device time then number. */
function droppedIn(events: StoredEvent[]): number {
  let n = 0;
  for (const evs of countBy(events, (e) => e.session_id).values()) {
    evs.sort((a, b) =>
      Date.parse(a.device_time) - Date.parse(b.device_time) || a.sequence_no - b.sequence_no
    );
    for (let i = 1; i < evs.length; i++) n += Math.max(0, evs[i].sequence_no - evs[i - 1].sequence_no - 1);
  }
  return n;
}

Deno.test("behavior_overview: headline numbers and rankings match an independent count, against the week before", async () => {
  const h = await harness();
  const a = await h.ask("behavior_overview", { period: "last_7_days" });
  const cur = humans(h.site.events, LAST7);
  const prev = humans(h.site.events, PREV7);
  assert.equal(a.visitors.value, distinct(cur.map((e) => e.anonymous_id)));
  assert.equal(a.visitors.previous, distinct(prev.map((e) => e.anonymous_id)));
  assert.equal(a.sessions.value, distinct(cur.map((e) => e.session_id)));
  assert.equal(a.pageviews.value, cur.filter((e) => e.event_type === "$pageview").length);
  const sessions = sessionsOf(cur);
  const bounces = sessions.filter((s) => s.pageviews <= 1).length;
  assert.equal(a.bounce_rate.value, Math.round((bounces / sessions.length) * 10000) / 10000);
  const engaged = new Set(
    sessions.filter((s) => s.end - s.start >= 10_000 || s.pageviews >= 2 || s.interactions > 0).map((s) =>
      s.visitor
    ),
  );
  assert.equal(a.engaged_visitors.value, engaged.size);
  const mean = sessions.reduce((n, s) => n + (s.end - s.start), 0) / sessions.length / 1000;
  assert.equal(a.session_duration_s.value, Math.round(mean * 10) / 10);
  // rankings
  const views = countBy(cur.filter((e) => e.event_type === "$pageview"), (e) => e.path);
  const top = [...views.entries()].sort((x, y) => y[1].length - x[1].length || x[0].localeCompare(y[0]))[0];
  assert.equal(a.top_pages[0].name, top[0]);
  assert.equal(a.top_pages[0].pageviews, top[1].length);
  // ranked by pageviews, each item says its pageviews first (the text read as a list ranked by visitors)
  assert.deepEqual(Object.keys(a.top_pages[0]).slice(0, 2), ["name", "pageviews"]);
  const byCountry = countBy(cur, (e) => e.geo.country ?? "(none)");
  for (const c of a.countries) {
    assert.equal(
      c.visitors,
      distinct(byCountry.get(c.name)!.map((e) => e.anonymous_id)),
    );
  }
  assert.equal(a.countries_total, byCountry.size);
  // automated traffic is counted apart from visitors
  const bots = h.site.events.filter((e) => within(LAST7)(e) && e.traffic === "bot").length;
  assert.equal(a.bots_and_ai_agents.bot_events.value, bots);
  const hits = h.site.hits.filter((x) =>
    x.timestamp >= LAST7.from && x.timestamp < LAST7.to && x.verification !== "spoofed"
  );
  assert.equal(a.bots_and_ai_agents.crawler_requests.value, hits.length);
  assert.equal(a.data_quality.dropped_events.value, droppedIn(cur));
  assert.equal(a.data_quality.dropped_events.previous, droppedIn(prev));
  assert.equal(typeof a.data_quality.note, "string");
  h.close();
});

Deno.test("behavior_overview: a batch lost between two arriving ones is reported as dropped events", async () => {
  const h = await harness();
  const before = await h.ask("behavior_overview", { period: "last_7_days" });
  const now = h.deps.clock.now(), at = now - 3_600_000;
  // one page load in three SDK batches; the middle one (5-9) never arrives
  const send = async (seqs: number[], start: number) => {
    h.deps.clock.set(at + start * 1000 + 60_000);
    const batch = seqs.map((n) =>
      event({
        anonymous_id: "anon-lost",
        session_id: "sess-lost",
        sequence_no: n,
        event_type: "click",
        device_time: new Date(at + n * 1000).toISOString(),
      })
    );
    const res = await h.app.fetch(
      new Request("http://svc/v1/behavior/events", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://acme.test" },
        body: JSON.stringify({ api_key: h.t.publicKey, batch }),
      }),
      { remoteAddr: { hostname: "81.2.69.160" } } as unknown as Deno.ServeHandlerInfo,
    );
    assert.equal(res.status, 204);
  };
  await send([0, 1, 2, 3, 4], 0);
  await send([10, 11, 12, 13, 14], 10);
  h.deps.clock.set(now);
  const after = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(after.data_quality.dropped_events.value, before.data_quality.dropped_events.value + 5);
  assert.equal(after.visitors.value, before.visitors.value + 1);
  h.close();
});

/** A page-leave behind both page means: it gives both engagement time and scroll depth as numbers. */
const reported = (e: StoredEvent) =>
  typeof e.properties.engagement_time_ms === "number" && typeof e.properties.depth_percent === "number";

Deno.test("behavior_pages: per-page figures, sorting, paging, and no engagement time under 5 visitors", async () => {
  const h = await harness();
  const cur = humans(h.site.events, { from: Date.parse("2026-10-24T00:00:00Z"), to: LAST7.to });
  const a = await h.ask("behavior_pages", { period: "last_28_days" });
  const byPage = countBy(cur, (e) => e.path);
  assert.equal(a.pages_total, byPage.size);
  for (const p of a.pages) {
    const evs = byPage.get(p.page)!;
    const views = evs.filter((e) => e.event_type === "$pageview");
    assert.equal(p.pageviews, views.length, p.page);
    assert.equal(p.visitors, distinct(views.map((e) => e.anonymous_id)), p.page);
    const leaves = evs.filter((e) => e.event_type === "$pageleave");
    const engagement = leaves.reduce((n, e) => n + Number(e.properties.engagement_time_ms), 0) /
      leaves.length / 1000;
    // withheld under 5 visitors reporting it (a page-leave with both figures), however many viewed the page
    const reporters = distinct(leaves.filter(reported).map((e) => e.anonymous_id));
    assert.equal(p.engagement_time_s, reporters < 5 ? null : Math.round(engagement * 10) / 10);
    assert.equal(p.rage_clicks, evs.filter((e) => e.properties.rage_click === true).length);
  }
  const sorted = await h.ask("behavior_pages", {
    period: "last_28_days",
    sort_by: "rage_clicks",
    limit: 2,
    offset: 1,
  });
  assert.equal(sorted.pages.length, 2);
  assert.equal(sorted.offset, 1);
  const rage = [...byPage.values()].map((evs) => evs.filter((e) => e.properties.rage_click === true).length)
    .sort((x, y) => y - x);
  assert.deepEqual(sorted.pages.map((p: { rage_clicks: number }) => p.rage_clicks), rage.slice(1, 3));
  const small = await h.ask("behavior_pages", { period: "yesterday" });
  assert.ok(small.pages.some((p: { visitors: number }) => p.visitors < 5), "the data has small pages");
  const yesterday = humans(h.site.events, {
    from: Date.parse("2026-11-19T00:00:00Z"),
    to: Date.parse("2026-11-20T00:00:00Z"),
  });
  for (const p of small.pages) {
    const leaves = yesterday.filter((e) => e.path === p.page && e.event_type === "$pageleave" && reported(e));
    assert.equal(p.engagement_time_s === null, distinct(leaves.map((e) => e.anonymous_id)) < 5, p.page);
  }
  const search = await h.ask("behavior_pages", { period: "last_28_days", search: "BLOG" });
  assert.deepEqual(search.pages.map((p: { page: string }) => p.page).sort(), ["/blog/launch", "/blog/tips"]);
  h.close();
});

Deno.test("behavior_pages, behavior_overview: a page's visitors are the ones who viewed it; its other events still count", async () => {
  const h = await harness();
  const at = Date.parse("2026-11-19T10:00:00Z");
  // a visitor who sent only a custom event from /contact, and a click there, without viewing it
  await storeSite(h.deps.kv, {
    events: ["signal", "$autocapture"].map((event_type, i) =>
      ev({
        org: h.t.org,
        touchpoint: h.t.touchpoint,
        anonymous_id: "no-view",
        session_id: "no-view-1",
        received_at: at + i * 1000,
        sequence_no: i,
        event_type,
        path: "/contact",
        screen: "/contact",
        properties: event_type === "$autocapture" ? { action: "click", rage_click: true } : {},
      })
    ),
    hits: [],
    identifiers: [],
  });
  const cur = humans(h.site.events, LAST7);
  const viewers = distinct(
    cur.filter((e) => e.path === "/contact" && e.event_type === "$pageview").map((e) => e.anonymous_id),
  );
  const rage = cur.filter((e) => e.path === "/contact" && e.properties.rage_click === true).length;
  const pages = await h.ask("behavior_pages", { period: "last_7_days", search: "/contact" });
  assert.equal(pages.pages[0].visitors, viewers);
  assert.equal(pages.pages[0].rage_clicks, rage + 1, "the click of the visitor who did not view it counts");
  const overview = await h.ask("behavior_overview", { period: "last_7_days" });
  const contact = overview.top_pages.find((p: { name: string }) => p.name === "/contact");
  assert.equal(contact.visitors, viewers);
  const events = await h.ask("behavior_events", { period: "last_7_days", search: "signal" });
  assert.equal(events.events[0].visitors, 1);
  h.close();
});

Deno.test("behavior_trends: a daily series of visitors, split by device, filled with empty days", async () => {
  const h = await harness();
  const a = await h.ask("behavior_trends", { period: "last_7_days", split_by: "device" });
  assert.equal(a.interval, "day");
  assert.equal(a.series.length, 7);
  const views = humans(h.site.events, LAST7).filter((e) => e.event_type === "$pageview");
  for (const point of a.series) {
    const day = views.filter((e) => new Date(e.received_at).toISOString().slice(0, 10) === point.bucket);
    assert.equal(point.visitors, distinct(day.map((e) => e.anonymous_id)), point.bucket);
    for (const [device, n] of Object.entries(point.by as Record<string, number>)) {
      assert.equal(n, distinct(day.filter((e) => e.device_type === device).map((e) => e.anonymous_id)));
    }
  }
  assert.equal(a.total.value, distinct(views.map((e) => e.anonymous_id)));
  const hourly = await h.ask("behavior_trends", {
    period: "last_7_days",
    interval: "hour_of_day",
    metric: "events",
  });
  assert.equal(hourly.series.length, 24);
  assert.equal(hourly.series.reduce((n: number, p: { events: number }) => n + p.events, 0), views.length);
  const tooLong = await h.askRaw("behavior_trends", { period: "last_30_days", interval: "hour" });
  assert.equal(tooLong.status, 422);
  h.close();
});

Deno.test("behavior_trends: under a property filter, 1 to 4 visitors read 'fewer than 5'", async () => {
  const h = await harness();
  const w = { from: Date.parse("2026-10-24T00:00:00Z"), to: LAST7.to };
  const a = await h.ask("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    property: "plan",
    property_value: "team",
    interval: "week",
  });
  assert.match(a.scope.filter, /plan = team/);
  const team = humans(h.site.events, w).filter((e) =>
    e.event_type === "sign_up" && e.properties.plan === "team"
  );
  const n = distinct(team.map((e) => e.anonymous_id));
  assert.ok(n > 0 && n < 5, `the data has a small group (${n})`);
  assert.equal(a.total.value, "fewer than 5");
  for (const p of a.series) assert.ok(p.visitors === 0 || p.visitors === "fewer than 5" || p.visitors >= 5);
  const split = await h.ask("behavior_trends", {
    period: "last_28_days",
    event: "sign_up",
    split_by: "property",
    property: "plan",
  });
  const names = split.splits.map((s: { name: string }) => s.name);
  const byPlan = countBy(
    humans(h.site.events, w).filter((e) => e.event_type === "sign_up"),
    (e) => String(e.properties.plan),
  );
  for (const [plan, evs] of byPlan) {
    assert.equal(names.includes(plan), distinct(evs.map((e) => e.anonymous_id)) >= 5, plan);
  }
  h.close();
});

Deno.test("behavior_events: every event name with counts, search and custom-only", async () => {
  const h = await harness();
  const a = await h.ask("behavior_events", { period: "last_7_days" });
  const byType = countBy(humans(h.site.events, LAST7), (e) => e.event_type);
  assert.equal(a.events_total, byType.size);
  for (const e of a.events) {
    assert.equal(e.events, byType.get(e.name)!.length);
    assert.equal(e.visitors, distinct(byType.get(e.name)!.map((x) => x.anonymous_id)));
  }
  const custom = await h.ask("behavior_events", { period: "last_7_days", custom_only: true });
  assert.deepEqual(custom.events.map((e: { name: string }) => e.name), ["sign_up"]);
  const search = await h.ask("behavior_events", { period: "last_7_days", search: "page" });
  assert.deepEqual(search.events.map((e: { name: string }) => e.name).sort(), ["$pageleave", "$pageview"]);
  h.close();
});

Deno.test("behavior_event_properties: common values named only when 5+ visitors sent them, text masked", async () => {
  const h = await harness();
  const a = await h.ask("behavior_event_properties", { period: "last_90_days", event: "sign_up" });
  const signups = humans(h.site.events, { from: Date.parse("2026-08-23T00:00:00Z"), to: LAST7.to })
    .filter((e) => e.event_type === "sign_up");
  const plan = a.properties.find((p: { property: string }) => p.property === "plan");
  const byPlan = countBy(signups, (e) => String(e.properties.plan));
  assert.equal(plan.values_total, byPlan.size);
  for (const [value, evs] of byPlan) {
    const visitors = distinct(evs.map((e) => e.anonymous_id));
    const shown = plan.values.find((v: { value: string }) => v.value === value);
    if (visitors >= 5) assert.equal(shown.visitors, visitors);
    else assert.equal(shown, undefined, `${value} has ${visitors} visitors`);
  }
  const note = a.properties.find((p: { property: string }) => p.property === "note");
  assert.deepEqual(note.values.map((v: { value: string }) => v.value), ["write to [email]"]);
  assert.equal(note.values_withheld, note.values_total - 1);
  const missing = await h.askRaw("behavior_event_properties", { event: "sign_up", property: "colour" });
  assert.equal(missing.status, 422);
  assert.match((await missing.json()).error, /"plan"/);
  h.close();
});

Deno.test("behavior_sources: channels, AI answer engines, campaigns, referrers, and which convert", async () => {
  const h = await harness();
  const a = await h.ask("behavior_sources", { period: "last_28_days", conversion_event: "sign_up" });
  const cur = humans(h.site.events, { from: Date.parse("2026-10-24T00:00:00Z"), to: LAST7.to });
  const converted = new Set(cur.filter((e) => e.event_type === "sign_up").map((e) => e.anonymous_id));
  const byChannel = countBy(cur, (e) => e.channel);
  assert.equal(a.channels_total, byChannel.size);
  for (const c of a.channels) {
    const visitors = new Set(byChannel.get(c.name)!.map((e) => e.anonymous_id));
    assert.equal(c.visitors, visitors.size, c.name);
    assert.equal(c.conversions, [...visitors].filter((v) => converted.has(v)).length, c.name);
  }
  assert.deepEqual(a.ai_answer_engines.map((r: { name: string }) => r.name).sort(), [
    "ChatGPT",
    "Perplexity",
  ]);
  assert.deepEqual(a.campaigns.map((r: { name: string }) => r.name), ["nov_launch"]);
  assert.ok(a.referring_sites.some((r: { name: string }) => r.name === "news.example"));
  h.close();
});

Deno.test("behavior_sessions: newest visits on request, at most the limit, no identifiers, counted as items", async () => {
  const h = await harness({ config: { plans: { professional: { allowances: { individual_items: 12 } } } } });
  const a = await h.ask("behavior_sessions", { limit: 10 });
  const cur = humans(h.site.events, LAST7);
  assert.equal(a.sessions_total, distinct(cur.map((e) => e.session_id)));
  assert.equal(a.sessions.length, 10);
  const starts = sessionsOf(cur).map((s) => s.start).sort((x, y) => y - x).slice(0, 10);
  assert.deepEqual(
    a.sessions.map((s: { started_at: string }) => s.started_at),
    starts.map((t) => new Date(Math.floor(t / 60_000) * 60_000).toISOString()),
  );
  const text = JSON.stringify(a);
  for (const id of h.site.identifiers) assert.ok(!text.includes(id), id);
  const pageFiltered = await h.ask("behavior_sessions", { page: "/contact", limit: 5 });
  for (const s of pageFiltered.sessions) assert.ok(s.pages.includes("/contact"));
  const after = await h.ask("behavior_sessions", { limit: 5 });
  assert.equal(after.sessions.length, 0, "the 12 items of the month are used");
  assert.ok(after.notices.some((n: string) => /individual items are used.*resets on 2026-12-01/.test(n)));
  h.close();
});
