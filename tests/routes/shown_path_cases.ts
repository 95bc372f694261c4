/**
 * Review #12: pages are stored in one percent-encoded form (lib/url_path.ts) but shown to people decoded: an
 * answer's text says "/café" and "/a b"; its JSON keeps the stored form, which filters match in either spelling.
 * Through the real HTTP interface (ingest, MCP tools/call, the app's pages, the report job).
 */
import assert from "node:assert/strict";
import { compactAll } from "../../lib/jobs/compact.ts";
import { listReports } from "../../lib/reports/store.ts";
import { findSaved } from "../../lib/saved/store.ts";
import { generateDueReports } from "../../pipeline/reports_generate.ts";
import { orgUrl, peopleWorld } from "../helpers/people.ts";
import { openSite, pageview, type Site } from "../helpers/site.ts";
import { ev, store } from "../lib/query/fixtures.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");

/** A tools/call over MCP with the site's read key: the result (its text and its structured content). */
async function mcpCall(site: Site, name: string, args: Record<string, unknown>) {
  const res = await site.app.request("/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${site.t.readKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  assert.equal(res.status, 200);
  const body = await res.text(); // JSON, or one server-sent event holding it
  return JSON.parse(body.startsWith("{") ? body : body.match(/^data: (.*)$/m)![1]).result;
}

Deno.test("an answer's text shows pages decoded; its JSON keeps the stored form", async () => {
  const site = await openSite({ now: NOW });
  try {
    const batch = [];
    for (let v = 0; v < 6; v++) {
      batch.push(pageview(v, 1, "/café"), pageview(v, 2, "/a b"), pageview(v, 3, "/a%2Fb"));
    }
    assert.equal((await site.ingest(batch)).status, 204);
    const result = await mcpCall(site, "behavior_pages", { period: "last_7_days" });
    const text: string = result.content[0].text;
    assert.match(text, /page \/café:/);
    assert.match(text, /page \/a b:/);
    assert.match(text, /page \/a%2Fb:/, "an escaped slash is no separator: kept");
    assert.doesNotMatch(text, /%C3%A9|%20/);
    const pages = result.structuredContent.pages.map((p: { page: string }) => p.page).sort();
    assert.deepEqual(pages, ["/a%20b", "/a%2Fb", "/caf%C3%A9"]);
    // a script filtering with either spelling finds the page
    for (const search of ["café", "/caf%C3%A9"]) {
      const a = await site.read("behavior_pages", { period: "last_7_days", search });
      assert.deepEqual(a.pages.map((p: { page: string }) => p.page), ["/caf%C3%A9"], search);
    }
  } finally {
    await site.close();
  }
});

Deno.test("the app's page of an insight shows pages decoded, in its table and its chart", async () => {
  const w = await peopleWorld();
  try {
    const now = w.deps.clock.now();
    const events = Array.from({ length: 12 }, (_, v) =>
      ev({
        org: w.org,
        touchpoint: w.tenant.touchpoint,
        received_at: now - 3_600_000 - v,
        anonymous_id: `v${v}`,
        session_id: `s${v}`,
        event_type: "$pageview",
        path: v % 2 ? "/caf%C3%A9" : "/a%20b", // as stored
      }));
    await store(w.deps.kv, { events });
    const mia = await w.join("mia@example.com", "owner");
    const insights = orgUrl(w.org, "insights");
    await mia.submit(insights, { tool: "behavior_pages", name: "Pages", touchpoint: w.tenant.touchpoint });
    const saved = await findSaved(w.deps.kv, w.org, "Pages", "insight");
    const page = await mia.open(`${insights}/${saved!.id}`);
    assert.equal(page.status, 200);
    assert.match(page.html, /<td data-label="Page">\/café<\/td>/);
    assert.match(page.html, /<td data-label="Page">\/a b<\/td>/);
    const chart = page.html.match(/<svg[^>]*role="img"[\s\S]*?<\/svg>/)?.[0] ?? "";
    assert.match(chart, /\/café/, "the chart's bar is named so too");
    assert.doesNotMatch(page.html, /caf%C3%A9|\/a%20b/);
  } finally {
    await w.close();
  }
});

Deno.test("a weekly report names pages decoded in its findings and chart; its numbers keep the stored form", async () => {
  const site = await openSite({ now: Date.parse("2026-11-18T10:00:00Z") }); // Wednesday of ISO week 47
  try {
    const at = new Date(site.deps.clock.now()).toISOString();
    const batch = Array.from({ length: 30 }, (_, v) => ({ ...pageview(v, 1, "/café"), device_time: at }));
    assert.equal((await site.ingest(batch)).status, 204);
    site.deps.clock.set(Date.parse("2026-11-23T23:10:00Z"));
    await compactAll(site.deps);
    site.deps.clock.set(Date.parse("2026-11-24T01:30:00Z")); // Tuesday: week 47 closed
    await compactAll(site.deps);
    await generateDueReports(site.app.ctx);
    const weekly = (await listReports(site.kv, site.t.org, "production"))
      .find((r) => r.kind === "weekly" && r.period_key === "2026-W47");
    assert.ok(weekly, "weekly report stored");
    assert.deepEqual(weekly.charts.top_pages.map((b) => b.label), ["/café"]);
    const uncrawled = weekly.findings.find((f) => f.kind === "pages_not_crawled");
    assert.ok(uncrawled, weekly.findings.map((f) => f.kind).join());
    assert.match(uncrawled.claim, /: \/café \(30 visitors\)\.$/);
    assert.equal(uncrawled.numbers.first_page, "/caf%C3%A9", "the form a script filters with");
    assert.doesNotMatch(weekly.summary + weekly.headline, /%C3%A9/);
  } finally {
    await site.close();
  }
});

Deno.test("an app's screen keeps the one stored form (old data reads the same), shown and found as named", async () => {
  const site = await openSite({ now: NOW });
  try {
    const ios = await site.admin("POST", "/touchpoints", { name: "iOS", kind: "ios" });
    const key =
      (await site.admin("POST", "/keys", { kind: "public", environment: "production", touchpoint: ios.id }))
        .key;
    const batch = Array.from({ length: 6 }, (_, v) => ({
      ...pageview(v, 1, "/x"),
      platform: "ios",
      event_type: "$screen",
      screen: "Home Screen",
      properties: {},
    }));
    assert.equal((await site.ingest(batch, { key, origin: null })).status, 204);
    const [ev] = await site.stored();
    assert.equal(ev.screen, "Home Screen", "the name as sent is kept beside the path");
    assert.equal(ev.path, "/Home%20Screen", "one stored form for pages and screens");
    const args = { touchpoint: ios.id, period: "last_7_days" };
    const result = await mcpCall(site, "behavior_pages", args);
    assert.match(result.content[0].text, /page \/Home Screen:/);
    assert.deepEqual(result.structuredContent.pages.map((p: { page: string }) => p.page), ["/Home%20Screen"]);
    for (const search of ["Home Screen", "/Home%20Screen", "home screen"]) {
      const a = await site.read("behavior_pages", { ...args, search });
      assert.deepEqual(a.pages.map((p: { page: string }) => p.page), ["/Home%20Screen"], search);
    }
  } finally {
    await site.close();
  }
});
