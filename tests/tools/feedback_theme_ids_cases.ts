/**
 * One theme vocabulary for feedback_themes and feedback_reviews, through the HTTP read API and MCP: every id or
 * label one tool gives (taxonomy or emergent) is accepted by the other; an unknown theme is the same 422 from
 * both, naming the known themes; a theme filter leaves no unrelated rising theme; a review lists the emergent
 * themes it belongs to, and its themes by name (label) as well as id.
 */
import assert from "node:assert/strict";
import { openSite, type Site } from "../helpers/site.ts";
import { acmeOwnApp } from "../helpers/own_app.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");
const DAY = 86_400_000;

/** An own app ("Acme", listing on the verified acme.test) with this month's reviews, and a followed app. */
async function world() {
  const s = await openSite({ now: NOW });
  const own = await acmeOwnApp(s, NOW);
  const rival = await s.admin("POST", "/apps", {
    store: "google_play",
    store_id: "com.rival.app",
    name: "Rival",
  });
  let n = 0;
  const line = (rating: number, text: string, daysAgo = 2) => ({
    id: `r${n++}`,
    author: `Someone ${n}`,
    rating,
    text,
    date: new Date(NOW - daysAgo * DAY).toISOString(),
  });
  const reviews = [
    line(1, "The delivery address resets to my old flat every single order."),
    line(2, "Wrong delivery address again, the courier went to my office."),
    line(1, "I cannot change the delivery address once the order is placed."),
    line(2, "My delivery address keeps disappearing from the checkout."),
    line(1, "Way too expensive, the subscription doubled this year."),
    line(2, "Support never answered my email about the refund."),
    // ten about the layout this month, none before: UI and usability is rising
    ...Array.from(
      { length: 10 },
      (_, i) => line(2, `The new layout is confusing, the menu moved again (${i}).`),
    ),
    line(5, "Great prices and friendly staff", 40),
  ];
  await s.importReviews(own.id, reviews);
  await s.importReviews(rival.id, reviews.map((r) => ({ ...r, id: `x${r.id}` })));
  return { s, own, rival };
}

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
  const body = await res.text();
  return JSON.parse(body.startsWith("{") ? body : body.match(/^data: (.*)$/m)![1]).result;
}

type Theme = { id: string; label: string; kind: string; reviews: number; examples: string[] };
type Review = { text: string; themes: { id: string; label: string }[] };

Deno.test("feedback themes: every theme id and label of feedback_themes is a filter of feedback_reviews", async () => {
  const { s } = await world();
  try {
    const themes: Theme[] = (await s.read("feedback_themes", { app: "Acme" })).apps[0].themes;
    const emergent = themes.find((t) => t.kind === "emergent" && t.label === "delivery address");
    assert.ok(emergent, `an emergent theme among ${themes.map((t) => t.id).join(", ")}`);
    assert.equal(emergent.id, "emergent:delivery address");
    for (const t of themes) {
      for (const theme of [t.id, t.label, t.label.toUpperCase()]) {
        const a = await s.read("feedback_reviews", { app: "Acme", theme });
        assert.equal(a.reviews_total, t.reviews, `${theme}: as many reviews as feedback_themes counts`);
        for (const r of a.reviews as Review[]) {
          assert.ok(
            r.themes.some((x) => x.id === t.id && x.label === t.label),
            `${theme}: ${JSON.stringify(r)}`,
          );
        }
        // and feedback_themes takes it back: that one theme
        const back = (await s.read("feedback_themes", { app: "Acme", theme })).apps[0];
        assert.deepEqual(back.themes.map((x: Theme) => x.id), [t.id]);
      }
    }
  } finally {
    await s.close();
  }
});

Deno.test("feedback themes: an unknown theme is the same 422 from both tools, naming the known themes", async () => {
  const { s } = await world();
  try {
    for (
      const [tool, input] of [
        ["feedback_themes", { app: "com.rival.app", theme: "pricing" }],
        ["feedback_themes", { theme: "pricing" }],
        ["feedback_reviews", { app: "Acme", theme: "pricing" }],
      ] as const
    ) {
      const res = await s.ask(tool, input);
      const body = await res.text();
      assert.equal(res.status, 422, `${tool} ${JSON.stringify(input)}: ${body}`);
      const error: string = JSON.parse(body).error;
      assert.match(error, /theme: unknown "pricing"/);
      assert.match(error, /pricing and subscriptions \(pricing_subscriptions\)/, error);
      assert.match(error, /UI and usability \(ui_usability\)/, error);
      assert.match(error, /delivery address \(emergent:delivery address\)/, error);
    }
  } finally {
    await s.close();
  }
});

Deno.test("feedback themes: a theme filter leaves no unrelated rising theme; without one, rising stays", async () => {
  const { s } = await world();
  try {
    const all = (await s.read("feedback_themes", { app: "Rival" })).apps[0];
    assert.deepEqual(all.rising, ["ui_usability"]);
    const one =
      (await s.read("feedback_themes", { app: "Rival", theme: "pricing and subscriptions" })).apps[0];
    assert.deepEqual(one.themes.map((t: Theme) => t.id), ["pricing_subscriptions"]);
    assert.deepEqual(one.rising, []);
    const ui = (await s.read("feedback_themes", { app: "Rival", theme: "ui_usability" })).apps[0];
    assert.deepEqual(ui.rising, ["ui_usability"]);
    // a known theme no review of the period is about: no themes, no rising, no error
    const ads = await s.read("feedback_themes", { app: "Rival", theme: "ads" });
    assert.deepEqual(ads.apps[0].themes, []);
    assert.deepEqual(ads.apps[0].rising, []);
    const text: string =
      (await mcpCall(s, "feedback_themes", { app: "Rival", theme: "pricing" })).content[0].text;
    assert.match(text, /unknown "pricing"/);
  } finally {
    await s.close();
  }
});

Deno.test("feedback reviews: a review names its themes (emergent too) by label, with ids in the JSON", async () => {
  const { s } = await world();
  try {
    const themes: Theme[] = (await s.read("feedback_themes", { app: "Acme" })).apps[0].themes;
    const emergent = themes.find((t) => t.id === "emergent:delivery address")!;
    assert.ok(emergent.examples.length > 0);
    const reviews: Review[] = (await s.read("feedback_reviews", { app: "Acme", limit: 25 })).reviews;
    for (const quote of emergent.examples) {
      const r = reviews.find((x) => x.text.includes(quote.replace(/…$/, "")));
      assert.ok(r, quote);
      assert.ok(r.themes.some((t) => t.id === emergent.id), `${quote}: ${JSON.stringify(r.themes)}`);
    }
    const result = await mcpCall(s, "feedback_reviews", { app: "Acme", search: "expensive" });
    const text: string = result.content[0].text;
    // the text names the theme (its id said as such), not a bare id list ("themes pricing_subscriptions")
    assert.match(text, /^ {2}- pricing and subscriptions: id pricing_subscriptions$/m, text);
    assert.doesNotMatch(text, /themes pricing_subscriptions/, text);
    assert.deepEqual(
      result.structuredContent.reviews[0].themes.map((t: { id: string }) => t.id),
      ["pricing_subscriptions"],
    );
    const delivery = await mcpCall(s, "feedback_reviews", { app: "Acme", theme: "delivery address" });
    const said: string = delivery.content[0].text;
    assert.doesNotMatch(said, /themes none/, said);
    assert.equal(said.match(/^ {2}- delivery address: id emergent:delivery address$/gm)?.length, 4, said);
  } finally {
    await s.close();
  }
});
