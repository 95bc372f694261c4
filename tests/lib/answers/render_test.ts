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
      "- name /pricing, visitors 40",
      "Notes: data fresh to 2026-11-20T11:58:00.000Z (2 minutes ago)",
    ].join("\n"),
  );
});
