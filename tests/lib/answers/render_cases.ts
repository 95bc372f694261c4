import assert from "node:assert/strict";
import { renderAnswer } from "../../../lib/answers/render.ts";

Deno.test("render: the text of an answer is generated from its JSON: scope, comparisons, lists with totals, notes", () => {
  const text = renderAnswer("behavior_overview", {
    scope: {
      period: { name: "last_7_days", from_date: "2026-11-14", to_date: "2026-11-20" },
      timezone: "Europe/Berlin",
      environment: "production",
      touchpoint: { kind: "website", name: "Acme" },
      traffic: "visitors",
      filter: null,
    },
    visitors: { value: 120, previous: 100, change: 0.2 },
    top_pages: [{ name: "/pricing", visitors: 40 }],
    top_pages_total: 9,
    notices: ["data fresh to 2026-11-20T11:58:00.000Z (2 minutes ago)"],
  });
  assert.equal(
    text,
    [
      "behavior_overview",
      "Scope: 2026-11-14 to 2026-11-20 (last_7_days); Europe/Berlin; production; website Acme; traffic: visitors",
      "visitors: 120 (previous 100, +20%)",
      "top pages (1 of 9):",
      "- /pricing: visitors 40",
      "Notes: data fresh to 2026-11-20T11:58:00.000Z (2 minutes ago)",
    ].join("\n"),
  );
});

Deno.test("render: compared items keep their names; lists inside items are lists; fractions read as percent", () => {
  const text = renderAnswer("behavior_explain_change", {
    total: { value: 102, previous: 114, difference: -12, change: -0.1053 },
    drivers: [{
      name: "Chrome",
      dimension: "browser",
      value: 50,
      previous: 65,
      difference: -15,
      change: -0.2308,
      contribution_share: 1.25,
    }],
    drivers_total: 28,
    dimensions: [{
      dimension: "channel",
      segments: [{ name: "Email", value: 10, previous: 6, change: 0.6667 }],
    }],
    bounce_rate: { value: 0.578, previous: 0.493, change: 0.172 },
    crawl_to_referral: {
      vendors: [{ vendor: "OpenAI", answer_engines: [], ai_reads: 74 }],
      vendors_total: 1,
    },
  });
  assert.equal(
    text,
    [
      "behavior_explain_change",
      "total: 102 (previous 114, -10.5%)",
      "drivers (1 of 28):",
      "- browser Chrome: 50 (previous 65, -23.1%), contribution share 125%",
      "dimensions (1):",
      "- channel",
      "  segments (1):",
      "  - Email: 10 (previous 6, +66.7%)",
      "bounce rate: 57.8% (previous 49.3%, +17.2%)",
      "crawl to referral:",
      "  vendors (1 of 1):",
      "  - vendor OpenAI: answer engines none, ai reads 74",
    ].join("\n"),
  );
});

Deno.test("render: an item's flag reads as a word, not as true or false", () => {
  const text = renderAnswer("account_overview", {
    organizations: [{ name: "Demo Org", described: true, own: false }],
  });
  assert.match(text, /- Demo Org: described, not own$/m);
  assert.doesNotMatch(text, /\btrue\b|\bfalse\b/);
});

Deno.test('render: an empty name reads as "", never as nothing', () => {
  const text = renderAnswer("behavior_event_properties", { properties: [{ property: "", events: 5 }] });
  assert.match(text, /- property "", events 5$/m);
});
