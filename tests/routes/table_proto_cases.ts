/**
 * Inputs named like Object.prototype members ("constructor", "toString", "__proto__") are ordinary names in
 * the tables the read tools and the app look names up in (s18 #19): a crawler asked for by such a name is an
 * unknown crawler, not a robots-only AI token. Through the read API on a real KV file.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { TEST_ADMIN_TOKEN, testDeps } from "../helpers/deps.ts";
import { createTenant } from "../helpers/tenant.ts";
import { metricLabel } from "../../lib/format/labels.ts";
import { choiceLabel, fieldLabel } from "../../lib/format/questions.ts";
import { vendorOfEngine } from "../../lib/crawler_findings/referral.ts";

Deno.test("tables: a crawler named 'constructor' or 'toString' is no robots-only token", async () => {
  const dir = await Deno.makeTempDir();
  const deps = await testDeps({ kv: await Deno.openKv(`${dir}/kv.sqlite3`) });
  const app = createApp(deps);
  try {
    const t = await createTenant(app, TEST_ADMIN_TOKEN);
    for (const crawler of ["constructor", "toString", "__proto__"]) {
      const res = await app.request("/v1/read/behavior_crawler_access", {
        method: "POST",
        headers: { authorization: `Bearer ${t.readKey}`, "content-type": "application/json" },
        body: JSON.stringify({ period: "today", crawler }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      const c = body.crawlers[0];
      assert.equal(c.crawler, crawler);
      assert.equal(c.token_used_by, "crawler", `${crawler}: ${JSON.stringify(c)}`);
      assert.equal(c.category, "other", `${crawler}: ${JSON.stringify(c)}`);
    }
    // the app's labels and the engines' vendors: a name of their own, never Object's member
    for (const name of ["constructor", "toString", "valueOf"]) {
      assert.equal(typeof metricLabel(name), "string");
      assert.equal(typeof fieldLabel(name), "string");
      assert.equal(typeof choiceLabel(name), "string");
      assert.equal(vendorOfEngine(name), name);
    }
    assert.equal(metricLabel("constructor"), "Constructor");
  } finally {
    deps.kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
