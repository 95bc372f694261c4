/**
 * Review #12: pages are stored in one percent-encoded form (lib/url_path.ts) but shown to people decoded: an
 * answer's text says "/café" and "/a b"; its JSON keeps the stored form, which filters match in either spelling.
 * Through the real HTTP interface (ingest, MCP tools/call, the app's pages).
 */
import assert from "node:assert/strict";
import { findSaved } from "../../lib/saved/store.ts";
import { orgUrl, peopleWorld } from "../helpers/people.ts";
import { openSite, pageview } from "../helpers/site.ts";
import { ev, store } from "../lib/query/fixtures.ts";

const NOW = Date.parse("2026-11-18T12:00:00Z");

Deno.test("an answer's text shows pages decoded; its JSON keeps the stored form", async () => {
  const site = await openSite({ now: NOW });
  try {
    const batch = [];
    for (let v = 0; v < 6; v++) {
      batch.push(pageview(v, 1, "/café"), pageview(v, 2, "/a b"), pageview(v, 3, "/a%2Fb"));
    }
    assert.equal((await site.ingest(batch)).status, 204);
    const res = await site.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${site.t.readKey}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "behavior_pages", arguments: { period: "last_7_days" } },
      }),
    });
    assert.equal(res.status, 200);
    const body = await res.text(); // JSON, or one server-sent event holding it
    const { result } = JSON.parse(body.startsWith("{") ? body : body.match(/^data: (.*)$/m)![1]);
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
