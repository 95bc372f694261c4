import assert from "node:assert/strict";
import { checkAnswer } from "../../lib/answers/check.ts";
import { harness } from "./harness.ts";
import { DAY, distinct, humans, LAST7 } from "./expect.ts";
import { NOW, PAGES, storeSite } from "./generate.ts";
import type { StoredEvent } from "../../lib/store/records.ts";

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

Deno.test("behavior_overview: no session duration for a page with fewer than 5 visitors, now or before", async () => {
  const h = await harness();
  // Find a page and a day whose visitors (who viewed it) number 1 to 4, computed from the records.
  let found: { page: string; day: string } | null = null;
  for (let d = 1; d < 25 && !found; d++) {
    const from = Date.parse(dateOf(NOW - d * DAY));
    for (const page of PAGES) {
      const n = distinct(
        humans(h.site.events, { from, to: from + DAY }).filter((e) =>
          e.path === page && e.event_type === "$pageview"
        )
          .map((e) => e.anonymous_id),
      );
      if (n > 0 && n < 5) found = { page, day: dateOf(from) };
    }
  }
  assert.ok(found, "the data has a small page-day");
  const a = await h.ask("behavior_overview", { period: `${found.day}..${found.day}`, page: found.page });
  assert.ok(typeof a.visitors.value === "number" && a.visitors.value > 0 && a.visitors.value < 5);
  assert.equal(a.session_duration_s.value, null);
  assert.equal(a.session_duration_s.change, null);
  if (a.visitors.previous !== null && a.visitors.previous < 5) {
    assert.equal(a.session_duration_s.previous, null);
  }
  assert.deepEqual(checkAnswer(a, { identifiers: h.site.identifiers }), []);
  // With 5 or more visitors the duration is given.
  const all = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(typeof all.session_duration_s.value, "number");
  h.close();
});

Deno.test("behavior_overview: `page` narrows crawler figures and appears in the scope", async () => {
  const h = await harness();
  for (const page of ["/pricing", "/contact"]) {
    const a = await h.ask("behavior_overview", { period: "last_7_days", page });
    assert.equal(a.scope.page, page);
    assert.equal(a.scope.filter, null, "a page is not a property filter: counts stay exact");
    const hits = h.site.hits.filter((x) =>
      x.timestamp >= LAST7.from && x.timestamp < LAST7.to && x.verification !== "spoofed" && x.path === page
    );
    assert.equal(a.bots_and_ai_agents.crawler_requests.value, hits.length, page);
  }
  const site = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(site.scope.page, null);
  h.close();
});

Deno.test("behavior_overview: with `page`, visitors and sessions are the ones who viewed it (a custom event there is not a view)", async () => {
  const h = await harness();
  // A visitor who only sent a custom event from /pricing, and a known visitor's session with a click there only.
  const seen = humans(h.site.events, LAST7).find((e) => e.event_type === "$pageview" && e.path === "/")!;
  const extra: StoredEvent[] = [
    {
      ...seen,
      id: "70000000-0000-4000-8000-000000000001",
      anonymous_id: "anon-lone",
      session_id: "sess-lone",
    },
    { ...seen, id: "70000000-0000-4000-8000-000000000002", session_id: "sess-click" },
  ].map((e) => ({
    ...e,
    event_type: "sign_up",
    path: "/pricing",
    screen: "/pricing",
    properties: { plan: "pro" },
  }));
  await storeSite(h.deps.kv, { events: extra, hits: [], identifiers: [] });
  h.site.events.push(...extra);
  const views = humans(h.site.events, LAST7).filter((e) =>
    e.event_type === "$pageview" && e.path === "/pricing"
  );
  const a = await h.ask("behavior_overview", { period: "last_7_days", page: "/pricing" });
  assert.equal(a.pageviews.value, views.length);
  assert.equal(a.visitors.value, distinct(views.map((e) => e.anonymous_id)));
  assert.equal(a.sessions.value, distinct(views.map((e) => e.session_id)));
  for (const s of a.sources) {
    const want = distinct(views.filter((e) => e.source === s.name).map((e) => e.anonymous_id));
    assert.equal(s.visitors, want, s.name);
  }
  assert.ok(a.engaged_visitors.value <= a.visitors.value);
  // Trends split by page count the viewers of each page too (the default event is the pageview).
  const t = await h.ask("behavior_trends", { period: "last_7_days", split_by: "page" });
  const pricing = t.splits.find((s: { name: string }) => s.name === "/pricing");
  assert.equal(pricing.visitors, distinct(views.map((e) => e.anonymous_id)));
  // The site as a whole still counts the visitor who sent only a custom event.
  const site = await h.ask("behavior_overview", { period: "last_7_days" });
  assert.equal(site.visitors.value, distinct(humans(h.site.events, LAST7).map((e) => e.anonymous_id)));
  h.close();
});
