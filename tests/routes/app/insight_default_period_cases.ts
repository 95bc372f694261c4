/**
 * The insight builder's period picker names the period each question really runs without one: for every
 * question an insight may ask, the picker's "Default (…)" is the period the tool's answer covers when asked
 * with no period (sessions and crawler access ask 7 days, crawl coverage 30; the picker said 28 for all).
 */
import assert from "node:assert/strict";
import { orgUrl, peopleWorld } from "../../helpers/people.ts";
import { TEST_ADMIN_TOKEN } from "../../helpers/deps.ts";
import { adminCall } from "../../helpers/tenant.ts";
import { INSIGHT_TOOLS } from "../../../tools/registry.ts";
import { listing } from "../../../pipeline/listing.ts";
import { periodLabel } from "../../../routes/app/period_picker.tsx";
import { setListing } from "../../../lib/feedback/store.ts";
import { verifiedDomain } from "../../helpers/verified_domain.ts";

/** A value for each input a question cannot be asked without; a new required input needs one here. */
const REQUIRED: Record<string, unknown> = {
  steps: [{ page: "/" }, { page: "/pricing" }],
  event: "sign_up",
};
/** Questions that need one input of several (the paths' anchor: a page or an event). */
const ONE_OF: Record<string, Record<string, unknown>> = { behavior_paths: { page: "/" } };

Deno.test("insight builder: the period picker's default is the period each question runs without one", async () => {
  const w = await peopleWorld();
  try {
    const apps = await adminCall(w.app, TEST_ADMIN_TOKEN, "POST", `/orgs/${w.org}/apps`, {
      store: "app_store",
      store_id: "123456789",
      name: "Acme app",
    });
    // the organization's own app (its listing names the verified site): every feedback question answers
    await setListing(w.deps.kv, w.org, apps.id, {
      name: "Acme app",
      developer: "Acme",
      developer_website: `https://www.${w.tenant.domain}/`,
      version: "1.0",
      fetched_at: w.deps.clock.now(),
    });
    await verifiedDomain(w.deps, w.org, w.tenant.domain);
    const mia = await w.join("mia@example.com", "member");
    assert.ok(INSIGHT_TOOLS.length >= 10);
    for (const tool of INSIGHT_TOOLS) {
      const schema = listing(tool).input_schema as {
        properties?: Record<string, unknown>;
        required?: string[];
      };
      if (!schema.properties?.period) continue;
      const input: Record<string, unknown> = { ...ONE_OF[tool.name] };
      for (const name of schema.required ?? []) {
        assert.ok(name in REQUIRED, `${tool.name}: give the required input "${name}" a value in REQUIRED`);
        input[name] = REQUIRED[name];
      }
      if ("touchpoint" in schema.properties) input.touchpoint = w.tenant.touchpoint;
      else if ("app" in schema.properties) input.app = apps.id;
      const res = await w.app.request(`/v1/read/${tool.name}`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.tenant.readKey}`, "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      const text = await res.text();
      assert.equal(res.status, 200, `${tool.name}: ${text}`);
      const ran = JSON.parse(text).scope.period.name as string;

      const page = await mia.open(`${orgUrl(w.org, "insights")}/new?tool=${tool.name}`);
      assert.equal(page.status, 200);
      const select = page.html.match(/<select name="in_period"[^>]*>([\s\S]*?)<\/select>/)?.[1] ?? "";
      const first = select.match(/<option value=""[^>]*>([^<]*)<\/option>/)?.[1];
      assert.equal(first, `Default (${periodLabel(ran).toLowerCase()})`, tool.name);
    }
  } finally {
    await w.close();
  }
});
