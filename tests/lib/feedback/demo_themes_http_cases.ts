/**
 * The demo as a new user meets it: the dev start's tenant, asked through the HTTP read API for its review
 * themes. Labels are the taxonomy's names or phrases its reviews wrote, and nothing of a reviewer's email
 * address (one demo review gives one) shows anywhere in the answer.
 */
import assert from "node:assert/strict";
import { testDeps } from "../../helpers/deps.ts";
import { createApp } from "../../../app.ts";
import { ensureDemoTenant } from "../../../lib/demo/tenant.ts";
import { TAXONOMY } from "../../../lib/feedback/themes/taxonomy.ts";

Deno.test("demo through the read API: readable theme labels and no personal data", async () => {
  const deps = await testDeps();
  try {
    deps.config = { ...deps.config, readKeyRatePerMinute: 100_000 } as typeof deps.config;
    const app = createApp(deps);
    const { tenant } = await ensureDemoTenant(deps);
    const ask = async (tool: string, input: Record<string, unknown>) => {
      const res = await app.request(`/v1/read/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.readKey}`, "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${tool}: ${text}`);
      return text;
    };
    const raw = (await ask("feedback_themes", { app: "Demo Shop", period: "last_90_days" })) +
      (await ask("feedback_themes", { app: "RivalMart", period: "last_90_days" }));
    assert.doesNotMatch(raw, /shopper|example\.com|exampl\b|@/i, "personal data in the answer");
    assert.doesNotMatch(raw, /\b(sinc|brows|exampl|ruin)\b/, "a stem in the answer");
    const labels = [...raw.matchAll(/"label":"([^"]*)"/g)].map((m) => m[1]);
    assert.ok(labels.length >= 5, raw.slice(0, 500));
    const taxonomy = new Set(TAXONOMY.map((t) => t.label));
    const emergent = labels.filter((l) => !taxonomy.has(l));
    assert.ok(emergent.length > 0, `emergent themes among ${labels.join(", ")}`);
    for (const l of emergent) assert.match(l, /^[a-z]+( [a-z]+)+$/, `"${l}" is a phrase of words`);
    for (const l of ["daily deals", "ruins browsing"]) {
      assert.ok(labels.includes(l), `${l} in ${labels.join(", ")}`);
    }
  } finally {
    deps.kv.close();
  }
});
