import assert from "node:assert/strict";
import { PROMPTS } from "../../toolkit/prompts.ts";
import { TOOLS } from "../../tools/registry.ts";

Deno.test("prompts: every tool a ready-made prompt tells the assistant to call exists", () => {
  const names = new Set(TOOLS.map((t) => t.name));
  for (const p of PROMPTS) {
    const text = p.text({ touchpoint: "Acme site", period: "last_7_days" });
    const named = text.match(/\b(?:behavior|feedback|account|app|crawl)_[a-z_]+/g) ?? [];
    assert.ok(named.length > 0, `${p.name} names a tool`);
    for (const n of named) assert.ok(names.has(n), `${p.name} names "${n}", which is no tool`);
  }
});
